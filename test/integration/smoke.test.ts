/**
 * The smoke test (`npm run smoke`) against the local stack: the local gateway over HTTP, the
 * authorizer and the functions on DynamoDB Local, as a deployed stage would answer; and the deploy
 * workflow's smoke steps, run as written, against it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCheck, runSmoke, USAGE } from '../../infra/cli/smoke.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import { STAGES, stackName } from '../../infra/stages.ts';
import { issueToken } from '../support/api-client.ts';
import { expression, readWorkflow } from '../support/workflows.ts';

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
  });
}

/**
 * Runs the deploy workflow's smoke step of `stage` as GitHub does (`bash -e -o pipefail`, from the
 * checkout, the step's `run:` as written), the stage's secret key set to `key` and `$RUNNER_TEMP`
 * holding the `cdk-outputs.json` the deploy step wrote, its `ApiBaseUrl` the local gateway's.
 */
async function runWorkflowSmoke(stage: (typeof STAGES)[number], key: string): Promise<Run> {
  const step = readWorkflow('.github/workflows/deploy.yml').jobs[stage]?.steps.find(
    (each) => each.id === 'smoke',
  );
  if (!step?.run) throw new Error(`deploy.yml's ${stage} job has no smoke step`);
  expect(step.env).toEqual({ PETSTORE_API_KEY: expression('secrets.PETSTORE_API_KEY') });
  const runnerTemp = await mkdtemp(join(tmpdir(), 'petstore-runner-'));
  try {
    const outputs = { [stackName(stage)]: { ApiBaseUrl: gateway.url } };
    await writeFile(join(runnerTemp, 'cdk-outputs.json'), JSON.stringify(outputs));
    return await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
      RUNNER_TEMP: runnerTemp,
      PETSTORE_API_KEY: key,
    });
  } finally {
    await rm(runnerTemp, { recursive: true });
  }
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
    "passes through deploy.yml's %s smoke step as written, the URL from cdk deploy's outputs file",
    async (stage) => {
      const passing = await runWorkflowSmoke(stage, token);
      const failing = await runWorkflowSmoke(stage, 'not-a-key');

      expect([passing.status, passing.stderr]).toEqual([0, '']);
      expect(passing.stdout.match(/^ok {3}/gm)).toHaveLength(6);
      expect(failing.status).toBe(1);
      expect(failing.stderr).toContain('smoke: 5 of 6 checks failed.');
    },
  );

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
      'smoke: Stack petstore-production has no output ApiBaseUrl: deploy the stage again.\n',
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
  ])('prints the usage line and exits 2 for the arguments %j', async (args) => {
    const { status, stderr } = await runScript(args);

    expect(status).toBe(2);
    expect(stderr.trim()).toBe(USAGE);
  });

  it('prints its help and exits 0 for --help', async () => {
    const { status, stdout, stderr } = await runScript(['--help']);

    expect(status).toBe(0);
    expect(stdout).toMatch(
      /^Usage: npm run smoke -- \(--stage staging\|production \[--outputs-file FILE\] \| --url URL\) --key KEY$/m,
    );
    expect(stdout).toContain('(env: PETSTORE_API_KEY)');
    expect(stderr).toBe('');
  });

  it('prints the usage line and exits 2 for an unknown option', async () => {
    const { status, stderr } = await runScript(['--url', gateway.url, '--key', 'k', '--verbose']);

    expect(status).toBe(2);
    expect(stderr.trim()).toBe(USAGE);
  });
});
