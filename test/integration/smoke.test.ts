/**
 * The smoke test (`npm run smoke`) against the local stack: the local gateway over HTTP, the
 * authorizer and the functions on DynamoDB Local, as a deployed stage would answer. The deploy
 * workflow's smoke steps, run as written: deploy-job.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCheck, runSmoke, runSmokeCommand, USAGE } from '../../infra/cli/smoke.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import { issueToken } from '../support/api-client.ts';
import {
  accepts,
  flagsNamed,
  listsOption,
  optionFlags,
  programOf,
} from '../support/command-usage.ts';
import { type Run, run } from '../support/processes.ts';

const SMOKE_SCRIPT = join(REPOSITORY_ROOT, 'infra/cli/smoke.ts');

let gateway: LocalGateway;
let token: string;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  token = await issueToken('free');
});
afterAll(() => gateway?.close());

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
