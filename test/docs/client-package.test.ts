/**
 * The client as a package (client/README.md): `npm pack ./client`, whose prepack builds it, holds
 * the README, package.json and the built modules, nothing else. Unpacked into a scratch project
 * beside only its dependencies, it is imported by its name, and every ```ts example of the
 * project's markdown (the README's, docs/client.md's) type-checks against it and runs, each file's
 * on a fresh `npm start` with its Free key; an example followed by a ```text block prints exactly
 * that, the stack's port masked.
 */
import { execFile } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStack, START_TIMEOUT_MS, startedStack, stopAll } from '../support/local-stack.ts';
import { MARKDOWN_FILES, REPO_ROOT, readMarkdown, typescriptExamples } from './markdown.ts';

const execFileAsync = promisify(execFile);

/** Runs a program to its end: its exit code and its stdout and stderr. */
async function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(file, args, { ...options, encoding: 'utf8' });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: unknown; stdout?: string; stderr?: string };
    if (typeof code !== 'number') throw error;
    return { code, stdout: stdout ?? '', stderr: stderr ?? '' };
  }
}

/** Paths of the files under `dir`, relative to it, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

const examples = MARKDOWN_FILES.flatMap((path) =>
  typescriptExamples(readMarkdown(path)).map((example) => ({
    ...example,
    path,
    file: `${path.replace(/\W+/g, '-')}-${example.line}.ts`,
  })),
);

let scratch: string;
/** The scratch project: the unpacked package, its dependencies and the examples. */
let project: string;
let installed: string;
/** The packed package.json. */
let manifest: {
  dependencies?: Record<string, string>;
  exports: Record<string, Record<string, string>>;
};

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'petstore-client-package-'));
  await execFileAsync('npm', ['pack', './client', '--pack-destination', scratch], {
    cwd: REPO_ROOT,
  });
  const [tarball = 'no tarball'] = readdirSync(scratch).filter((name) => name.endsWith('.tgz'));
  project = join(scratch, 'app');
  installed = join(project, 'node_modules/@petstore/client');
  mkdirSync(installed, { recursive: true });
  await execFileAsync('tar', [
    '-xzf',
    join(scratch, tarball),
    '-C',
    installed,
    '--strip-components=1',
  ]);
  manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
  // What `npm install` puts beside it: its dependencies (the repository's copies), and the Node.js
  // types an app compiling it has.
  for (const name of [...Object.keys(manifest.dependencies ?? {}), '@types/node']) {
    mkdirSync(dirname(join(project, 'node_modules', name)), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules', name), join(project, 'node_modules', name));
  }
  writeFileSync(join(project, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    strict: true,
    noEmit: true,
    types: ['node'],
    skipLibCheck: true,
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions }));
  for (const { file, code } of examples) writeFileSync(join(project, file), code);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('npm pack ./client', () => {
  it('holds the README, package.json and one .js and .d.ts per module, nothing else', () => {
    const modules = filesUnder(join(REPO_ROOT, 'client/src')).map((path) => path.slice(0, -3));
    const built = modules.flatMap((module) => [`dist/${module}.js`, `dist/${module}.d.ts`]);

    expect(filesUnder(installed)).toEqual(['README.md', ...built, 'package.json'].sort());
    const entryPoints = Object.values(manifest.exports['.'] ?? {});
    expect(filesUnder(installed)).toEqual(
      expect.arrayContaining(entryPoints.map((path) => relative('.', path))),
    );
  });

  it('is imported by its name, with what client/src/index.ts exports', async () => {
    const source = Object.keys(await import('../../client/src/index.ts')).sort();

    const { code, stdout, stderr } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "console.log(Object.keys(await import('@petstore/client')).sort().join(' '))",
      ],
      { cwd: project },
    );

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.trim().split(' ')).toEqual(source);
  });
});

it('the TypeScript examples type-check against the package as an app compiles them', async () => {
  const tsc = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

  const { code, stdout } = await run(process.execPath, [tsc, '-p', project], { cwd: project });

  expect(examples.map(({ path }) => path)).toContain('client/README.md');
  expect(stdout).toBe('');
  expect(code).toBe(0);
}, 60_000);

/** The local stack's port, which differs from run to run, masked. */
const maskPort = (text: string) => text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>');

describe.each(MARKDOWN_FILES.filter((path) => examples.some((example) => example.path === path)))(
  'the TypeScript examples of %s',
  (path) => {
    let env: Record<string, string>;

    beforeAll(async () => {
      const { started, url } = await startedStack(await freshStack());
      const [, token = ''] = /^ {2}free +key_\w+ +(pet_local_\S+)$/m.exec(started.stdout()) ?? [];
      env = { PATH: process.env.PATH ?? '', BASE: url, API_KEY: token };
    }, START_TIMEOUT_MS);
    afterAll(stopAll);

    it.each(examples.filter((example) => example.path === path))(
      'line $line runs on a fresh stack with its Free key, printing what the document shows',
      async ({ file, prints }) => {
        const { code, stdout } = await run(
          'bash',
          ['-c', 'exec "$0" "$1" 2>&1', process.execPath, file],
          { cwd: project, env },
        );

        expect(code, stdout).toBe(0);
        if (prints !== undefined)
          expect(maskPort(stdout.replace(/\n$/, ''))).toBe(maskPort(prints));
      },
    );
  },
);
