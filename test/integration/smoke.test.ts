/**
 * The smoke test (`npm run smoke`) against the local stack: the local gateway over HTTP, the
 * authorizer and the functions on DynamoDB Local, as a deployed stage would answer; and the deploy
 * workflow's smoke steps, run as written, against it.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCheck, runSmoke, runSmokeCommand, USAGE } from '../../infra/cli/smoke.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import { STAGES } from '../../infra/stages.ts';
import { issueToken } from '../support/api-client.ts';
import { accepts, flagsNamed, listsOption, optionFlags, programOf } from '../support/usage.ts';
import {
  expression,
  type ResolvedStep,
  readWorkflow,
  resolveSteps,
  runsWhen,
} from '../support/workflows.ts';

const SMOKE_SCRIPT = join(REPOSITORY_ROOT, 'infra/cli/smoke.ts');

let gateway: LocalGateway;
let token: string;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  token = await issueToken('free');
});
afterAll(() => gateway?.close());

/** A process's exit status and output. */
interface Run {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a program in its own process, without blocking this one (whose gateway must answer). */
function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: REPOSITORY_ROOT,
        encoding: 'utf8',
        env: { ...process.env, NODE_NO_WARNINGS: '1', ...env },
      },
      (error, stdout, stderr) =>
        resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs `npm run smoke -- <args>` as npm would: the script under tsx. */
function runScript(args: string[]): Promise<Run> {
  return run(process.execPath, ['--import', 'tsx', SMOKE_SCRIPT, ...args], {
    PETSTORE_API_KEY: '',
    AWS_REGION: 'us-east-1',
  });
}

/** The smoke command's dependencies for a run that reaches no stage (its help), output dropped. */
const SILENT = {
  cloudFormation: () => {
    throw new Error('no stage in this run');
  },
  homeRegion: async () => 'us-east-1',
  stdout: () => {},
  stderr: () => {},
};

/** The stage's home region in these runs, and its other region. */
const REGIONS = ['us-east-1', 'us-west-2'] as const;

/**
 * Runs a step of the deploy workflow's `stage` job as GitHub does (`bash -e -o pipefail`, from the
 * checkout), with the step's own env, the stage's secret key (`secrets.PETSTORE_API_KEY`) as `key`,
 * earlier steps' outputs (`steps.<id>.outputs.<name>`) from `outputs`, AWS_REGION the home
 * region's (as the credentials step sets it) and `$RUNNER_TEMP` as `runnerTemp`.
 */
function runWorkflowStep(
  step: WorkflowStep,
  key: string,
  runnerTemp: string,
  env: NodeJS.ProcessEnv = {},
  outputs: Record<string, Record<string, string>> = {},
): Promise<Run> {
  const values: Record<string, string> = {
    [expression('secrets.PETSTORE_API_KEY')]: key,
    ...Object.fromEntries(
      Object.entries(outputs).flatMap(([id, named]) =>
        Object.entries(named).map(([name, value]) => [
          expression(`steps.${id}.outputs.${name}`),
          value,
        ]),
      ),
    ),
  };
  const stepEnv = Object.fromEntries(
    Object.entries(step.env ?? {}).map(([name, value]) => [name, values[value] ?? value]),
  );
  expect(Object.values(stepEnv).filter((value) => value.includes('${{'))).toEqual([]);
  expect(stepEnv).toMatchObject({ PETSTORE_API_KEY: key });
  return run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
    RUNNER_TEMP: runnerTemp,
    AWS_REGION: REGIONS[0],
    ...stepEnv,
    ...env,
  });
}

/** A `run:` step of the deploy workflow, as the runner runs it. */
type WorkflowStep = ResolvedStep & { readonly run: string };

/**
 * The deploy workflow's step of the `stage` job (its steps resolved through the composite actions
 * they use) that `matches`: the region-by-region deploy or the global smoke test.
 */
function workflowStep(stage: (typeof STAGES)[number], matches: RegExp): WorkflowStep {
  const job = readWorkflow('.github/workflows/deploy.yml').jobs[stage];
  const step = resolveSteps(job?.steps ?? []).find((each) => matches.test(each.run ?? ''));
  if (!step?.run) throw new Error(`deploy.yml's ${stage} job has no step matching ${matches}`);
  return step as WorkflowStep;
}

/** The deploy jobs' region-by-region step. */
const REGIONS_STEP = /^\.ci\/deploy-regions\b/;

/** The deploy jobs' smoke test through the global address. */
const GLOBAL_SMOKE_STEP = /^npm run smoke\b.*--global/;

/** A temporary `$RUNNER_TEMP`, removed after `use`. */
async function withRunnerTemp<T>(use: (runnerTemp: string) => Promise<T>): Promise<T> {
  const runnerTemp = await mkdtemp(join(tmpdir(), 'petstore-runner-'));
  try {
    return await use(runnerTemp);
  } finally {
    await rm(runnerTemp, { recursive: true });
  }
}

/**
 * An `npm` for .ci/deploy-regions in place of the real one: `deploy --list-regions` lists
 * {@link REGIONS}, a region's `deploy` (which needs AWS) is recorded in `$CALLS` and writes the
 * outputs file cdk would, that region's RegionalApiBaseUrl (and ApiBaseUrl, the global address)
 * the local gateway's; `smoke` runs the real smoke command.
 */
const FAKE_NPM = `#!/usr/bin/env bash
set -euo pipefail
[ "$2" = --silent ] && shift
case "$2" in
  smoke) shift 3; exec "$NODE" --import tsx infra/cli/smoke.ts "$@" ;;
  deploy)
    stage=$4
    if [ "$5" = --list-regions ]; then printf '%s\n' ${REGIONS.join(' ')}; exit 0; fi
    region=$6
    echo "deploy $stage $region" >>"$CALLS"
    file=\${*: -1}
    stack=petstore-$stage
    [ "$region" = ${REGIONS[0]} ] || stack=$stack-$region
    printf '{"%s": {"Regions": "%s", "RegionalApiBaseUrl": "%s", "ApiBaseUrl": "%s"}}' "$stack" ${REGIONS.join(',')} "$GATEWAY" "$GATEWAY" >"$file" ;;
esac
`;

/**
 * Runs the deploy workflow's region-by-region step of `stage` as written, with {@link FAKE_NPM},
 * the stage's key `key`; then, when it passed and `globalKey` is given, the global smoke step, with
 * the outputs the first step wrote to `$GITHUB_OUTPUT` (as GitHub hands them over) and `globalKey`.
 *
 * @returns The first step's run, the deploys it made and what it wrote to `$GITHUB_OUTPUT`; the
 *   global smoke step's run, if any.
 */
function runDeployJob(stage: (typeof STAGES)[number], key: string, globalKey?: string) {
  return withRunnerTemp(async (runnerTemp) => {
    const bin = join(runnerTemp, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'npm'), FAKE_NPM, { mode: 0o755 });
    const calls = join(runnerTemp, 'calls');
    const githubOutput = join(runnerTemp, 'github-output');
    await writeFile(calls, '');
    await writeFile(githubOutput, '');
    const step = workflowStep(stage, REGIONS_STEP);
    const result = await runWorkflowStep(step, key, runnerTemp, {
      PATH: `${bin}:${process.env.PATH}`,
      NODE: process.execPath,
      CALLS: calls,
      GATEWAY: `${gateway.url}/`,
      GITHUB_OUTPUT: githubOutput,
    });
    const written = await readFile(githubOutput, 'utf8');
    const outputs = Object.fromEntries(
      written.split('\n').flatMap((line) => (line ? [line.split('=', 2) as [string, string]] : [])),
    );
    const global =
      result.status === 0 && globalKey !== undefined
        ? await runWorkflowStep(
            workflowStep(stage, GLOBAL_SMOKE_STEP),
            globalKey,
            runnerTemp,
            {},
            {
              [step.id ?? '']: outputs,
            },
          )
        : undefined;
    return {
      ...result,
      deploys: (await readFile(calls, 'utf8')).trim().split('\n'),
      githubOutput: written,
      global,
    };
  });
}

describe('smoke test', () => {
  it('passes every check against a healthy stack through the client: create, get, list, rate-limit headers, 401', async () => {
    const checks = await runSmoke(gateway.url, token);

    expect(checks.map((check) => [check.name, check.ok, check.detail])).toEqual([
      [
        'createPet with an Idempotency-Key answers 201 with the pet',
        true,
        expect.stringMatching(/^201, id \d+$/),
      ],
      [
        'createPet retried with the same Idempotency-Key replays the same pet',
        true,
        expect.stringMatching(/^201, id \d+, Idempotent-Replayed: true$/),
      ],
      [
        'getPet answers 200 with the created pet and its deprecation headers',
        true,
        '200, Deprecation, Sunset, Link',
      ],
      [
        'listPets filtered by status answers 200 with pets of that status only',
        true,
        expect.stringMatching(/^200, \d+ available pet\(s\)$/),
      ],
      [
        'every answer with a key carries the rate-limit headers',
        true,
        expect.stringMatching(/^X-RateLimit-Limit 60, X-RateLimit-Remaining \d+$/),
      ],
      ['a request with an empty key answers 401 with WWW-Authenticate: Bearer', true, '401'],
    ]);
  });

  it('fails the checks that need a key when the key is refused, and says what it saw', async () => {
    const checks = await runSmoke(gateway.url, 'not-a-key');

    expect(checks.filter((check) => !check.ok).map((check) => check.name)).toEqual([
      'createPet with an Idempotency-Key answers 201 with the pet',
      'createPet retried with the same Idempotency-Key replays the same pet',
      'getPet answers 200 with the created pet and its deprecation headers',
      'listPets filtered by status answers 200 with pets of that status only',
      'every answer with a key carries the rate-limit headers',
    ]);
    expect(checks[0]?.detail).toMatch(/^status 401: unauthorized \(/);
    expect(formatCheck(checks[2] ?? { name: '', ok: true, detail: '' })).toBe(
      'FAIL getPet answers 200 with the created pet and its deprecation headers: no pet was created',
    );
  });

  it.each(STAGES)(
    "passes through deploy.yml's %s global smoke step as written, the URL from the home region's outputs file the region-by-region step names",
    async (stage) => {
      const passing = (await runDeployJob(stage, token, token)).global;
      const failing = (await runDeployJob(stage, token, 'not-a-key')).global;

      expect([passing?.status, passing?.stderr]).toEqual([0, '']);
      expect(passing?.stdout.match(/^ok {3}/gm)).toHaveLength(6);
      expect(passing?.stdout).toContain(`global: ${gateway.url}`);
      expect(failing?.status).toBe(1);
      expect(failing?.stderr).toContain('smoke: 5 of 6 checks failed (global).');
    },
  );

  it.each(STAGES)(
    "deploys %s region by region in deploy.yml's step as written, each smoke-tested at its own URL",
    async (stage) => {
      const { status, stdout, stderr, deploys, githubOutput } = await runDeployJob(stage, token);

      expect([status, stderr]).toEqual([0, '']);
      expect(deploys).toEqual(REGIONS.map((region) => `deploy ${stage} ${region}`));
      expect(stdout.match(/^ok {3}/gm)).toHaveLength(12);
      expect(stdout.match(/^us-(east-1|west-2): /gm)).toEqual(['us-east-1: ', 'us-west-2: ']);
      expect(githubOutput).not.toContain('smoke-failed');
    },
  );

  it('stops at the first region whose smoke test fails, and names it for the rollback', async () => {
    const { status, stderr, deploys, githubOutput } = await runDeployJob('production', 'not-a-key');

    expect(status).toBe(1);
    expect(deploys).toEqual(['deploy production us-east-1']);
    expect(stderr).toContain('smoke: 5 of 6 checks failed (us-east-1).');
    expect(githubOutput).toBe('smoke-failed=us-east-1\n');
    const steps = resolveSteps(
      readWorkflow('.github/workflows/deploy.yml').jobs.production?.steps ?? [],
    );
    const regions = steps.find((step) => REGIONS_STEP.test(step.run ?? ''));
    const outputs = { [regions?.id ?? '']: { 'smoke-failed': 'us-east-1' } };
    const rollback = steps.filter((step) => runsWhen(step, { failed: true, outputs }) && step.run);
    expect(rollback.map((step) => [step.run?.split(' -- ')[0], step.env?.REGION])).toEqual([
      ['npm run rollback', expression(`steps.${regions?.id}.outputs.smoke-failed`)],
    ]);
  });

  it('fails with one line when the outputs file lacks the stage', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-outputs-'));
    const file = join(dir, 'cdk-outputs.json');
    await writeFile(file, JSON.stringify({ 'petstore-staging': { ApiBaseUrl: gateway.url } }));

    const result = await runScript([
      '--stage',
      'production',
      '--outputs-file',
      file,
      '--key',
      token,
    ]);
    await rm(dir, { recursive: true });

    expect([result.status, result.stdout, result.stderr]).toEqual([
      1,
      '',
      `smoke: No outputs of stack petstore-production in ${file}.\n`,
    ]);
  });

  it('prints one line per check and exits 0 when all pass, 1 when one fails', async () => {
    const passing = await runScript(['--url', gateway.url, '--key', token]);
    const failing = await runScript(['--url', gateway.url, '--key', 'not-a-key']);

    expect(passing.status).toBe(0);
    expect(passing.stdout.trim().split('\n')).toHaveLength(6);
    expect(
      passing.stdout
        .trim()
        .split('\n')
        .every((line) => line.startsWith('ok   ')),
    ).toBe(true);
    expect(failing.status).toBe(1);
    expect(failing.stdout).toContain('FAIL createPet');
  });

  it.each([
    [[]],
    [['--url', 'http://127.0.0.1:1']],
    [['--stage', 'dev', '--key', 'k']],
    [['--stage', 'staging', '--url', 'http://x', '--key', 'k']],
    [['--url', 'http://x', '--outputs-file', 'cdk-outputs.json', '--key', 'k']],
    [['--url', 'http://x', '--region', 'us-east-1', '--key', 'k']],
    [['--stage', 'staging', '--region', 'us-east-1', '--global', '--key', 'k']],
  ])('prints the usage line and exits 2 for the arguments %j', async (args) => {
    const { status, stderr } = await runScript(args);

    expect(status).toBe(2);
    expect(stderr.trim()).toBe(USAGE);
  });

  it('prints its help and exits 0 for --help, naming every option its definition holds, each of them taken', async () => {
    const { status, stdout, stderr } = await runScript(['--help']);
    const program = await programOf(() => runSmokeCommand(['--help'], SILENT));

    expect([status, stderr]).toEqual([0, '']);
    for (const flags of optionFlags(program))
      expect([flags, listsOption(stdout, flags)]).toEqual([flags, true]);
    expect(stdout).toContain('(env: PETSTORE_API_KEY)');
    expect(flagsNamed(stdout).filter((flag) => !accepts(program, flag))).toEqual([]);
  });

  it('prints the usage line and exits 2 for an unknown option', async () => {
    const { status, stderr } = await runScript([
      '--url',
      gateway.url,
      '--key',
      'k',
      '--no-such-option',
    ]);

    expect(status).toBe(2);
    expect(stderr.trim()).toBe(USAGE);
  });
});
