/**
 * The load scenarios' own npm project (load/): Artillery and its cloud SDKs are installed there on
 * first use, never by the project's `npm ci`, and load/'s lockfile pins what its package.json asks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOAD_PROJECT } from '../../infra/cli/load.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
interface Lockfile {
  packages: Record<string, Manifest & { version?: string }>;
}

/** A JSON file of the repository. */
function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

describe('the load project', () => {
  const manifest = readJson<Manifest>(join(LOAD_PROJECT, 'package.json'));
  const lockfile = readJson<Lockfile>(join(LOAD_PROJECT, 'package-lock.json'));

  it('is load/, whose package.json pins Artillery to one version, as its lockfile installs it', () => {
    const version = manifest.dependencies?.artillery;

    expect(LOAD_PROJECT).toBe(join(REPOSITORY_ROOT, 'load'));
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lockfile.packages['']?.dependencies).toEqual(manifest.dependencies);
    expect(lockfile.packages['node_modules/artillery']?.version).toBe(version);
  });

  it("keeps Artillery out of the project's own install", () => {
    const root = readJson<Manifest>(join(REPOSITORY_ROOT, 'package.json'));
    const rootLock = readJson<Lockfile>(join(REPOSITORY_ROOT, 'package-lock.json'));

    expect({ ...root.dependencies, ...root.devDependencies }).not.toHaveProperty('artillery');
    expect(Object.keys(rootLock.packages).filter((path) => /(^|\/)artillery$/.test(path))).toEqual(
      [],
    );
  });
});
