/**
 * The prerequisites of `npm test` (infra/test-prerequisites.ts), on a PATH of stand-in programs:
 * each missing one is named in one line with how to install it.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { missingTestPrerequisites } from '../../infra/test-prerequisites.ts';

const JAVA =
  'npm test: DynamoDB Local needs Java 17 or later: install it, e.g. apt-get install -y openjdk-17-jre-headless';
const CHROMIUM =
  'npm test: the API reference page is rendered in Chromium: install it, e.g. apt-get install -y chromium';
const CFN_LINT =
  'npm test: the synthesized templates are checked by cfn-lint: install it, e.g. pip install cfn-lint==1.51.0';
const SHELLCHECK =
  "npm test: the workflows' run: scripts are checked by shellcheck: install it, e.g. apt-get install -y shellcheck";

/** Shell scripts standing in for the programs, as `java -version` and `--version` answer. */
const PROGRAMS = {
  java: `echo 'openjdk version "17.0.15" 2025-04-15' >&2`,
  chromium: 'echo Chromium 156.0.8078.79',
  'cfn-lint': 'echo cfn-lint 1.51.0',
  shellcheck: 'echo ShellCheck - shell script analysis tool',
};
type Program = keyof typeof PROGRAMS;

const savedPath = process.env.PATH;
const directories: string[] = [];

/** A directory holding `programs` (default: all of them), as the whole PATH. */
async function pathWith(programs: Partial<Record<Program, string>> = PROGRAMS): Promise<string> {
  const bin = await mkdtemp(join(tmpdir(), 'petstore-prerequisites-'));
  directories.push(bin);
  for (const [name, script] of Object.entries(programs)) {
    await writeFile(join(bin, name), `#!/bin/sh\n${script}\n`);
    await chmod(join(bin, name), 0o755);
  }
  return bin;
}

/** {@link PROGRAMS} without `program`. */
function without(program: Program): Partial<Record<Program, string>> {
  const { [program]: _, ...rest } = PROGRAMS;
  return rest;
}

/** Runs the script as `npm test`'s `pretest` does, on `path`. */
function runScript(path: string) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'infra/test-prerequisites.ts'], {
    cwd: new URL('../..', import.meta.url),
    env: { ...process.env, PATH: path },
    encoding: 'utf8',
  });
}

afterEach(async () => {
  process.env.PATH = savedPath;
  await Promise.all(directories.splice(0).map((dir) => rm(dir, { recursive: true })));
});

describe('the prerequisites of npm test', () => {
  it('are all there when java 17, chromium, cfn-lint and shellcheck run', async () => {
    process.env.PATH = await pathWith();

    expect(missingTestPrerequisites()).toEqual([]);
  });

  it.each([
    ['java', JAVA],
    ['chromium', CHROMIUM],
    ['cfn-lint', CFN_LINT],
    ['shellcheck', SHELLCHECK],
  ] as const)('name a missing %s in one line, with how to install it', async (program, line) => {
    process.env.PATH = await pathWith(without(program));

    expect(missingTestPrerequisites()).toEqual([line]);
  });

  it('name a Java older than 17 with its version', async () => {
    process.env.PATH = await pathWith({
      ...PROGRAMS,
      java: `echo 'openjdk version "11.0.22" 2024-01-16' >&2`,
    });

    expect(missingTestPrerequisites()).toEqual([`${JAVA} (found Java 11)`]);
  });

  it('name a cfn-lint that is on PATH but does not run (a shim of an uninstalled tool)', async () => {
    process.env.PATH = await pathWith({ ...PROGRAMS, 'cfn-lint': 'exit 127' });

    expect(missingTestPrerequisites()).toEqual([CFN_LINT]);
  });

  it('stop the npm script with exit 1 and a line per missing program, before anything runs', async () => {
    const run = runScript(await pathWith({}));

    expect([run.status, run.stdout, run.stderr]).toEqual([
      1,
      '',
      `${JAVA}\n${CHROMIUM}\n${CFN_LINT}\n${SHELLCHECK}\n`,
    ]);
  });

  it('let the npm script go on silently when nothing is missing', async () => {
    const run = runScript(await pathWith());

    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
  });
});
