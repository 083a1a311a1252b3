/**
 * The deploy workflow's jobs, their steps run as written (resolved through the composite actions
 * they use) against the local stack: region by region, each region smoke-tested at its own URL,
 * then the global smoke test; a failed region stops the job and is named for the rollback.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { STAGES } from '../../infra/stages.ts';
import { issueToken } from '../support/api-client.ts';
import { type Run, run } from '../support/processes.ts';
import {
  expression,
  type ResolvedStep,
  readWorkflow,
  resolveSteps,
  runsWhen,
} from '../support/workflows.ts';

let gateway: LocalGateway;
let token: string;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
});
// A key of its own for each test: a Free key's 60 requests a minute hold one job's smoke tests.
beforeEach(async () => {
  token = await issueToken('free');
});
afterAll(() => gateway?.close());

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

describe("the deploy workflow's jobs, as written", () => {
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
});
