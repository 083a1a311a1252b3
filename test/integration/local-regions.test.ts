/**
 * `npm start -- --regions`: the two-region local stack as a user runs it, in a child process
 * (test/support/local-stack.ts): a line per region on consecutive ports, the keys of the home
 * region honoured in both, `npm run keys` on the home region, a pet created in one region listed
 * in the other, a leaked key reported to the other region revoked in the home region and refused
 * in both, the model's figures on both gateways, everything stopped on SIGTERM; and the one-line
 * refusals of a bad `--regions`.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { match, serveGitHubKeys } from '../../bench/github-keys.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import {
  dynamoDbLocalPids,
  EXIT_TIMEOUT_MS,
  exitCodeWithin,
  freshStack,
  START_TIMEOUT_MS,
  stackPort,
  startLocalStack,
  stopAll,
  waitFor,
} from '../support/local-stack.ts';

/** The second region's DynamoDB Local port of each stack started, which stopAll does not know. */
const secondPorts: number[] = [];

afterEach(async () => {
  await stopAll();
  // A stack killed before it stopped its DynamoDB Locals leaves them running.
  for (const port of secondPorts.splice(0)) {
    for (const pid of dynamoDbLocalPids(port)) process.kill(pid, 'SIGKILL');
  }
});

/** Runs `npm run keys -- <args>` (its entry, with tsx) on a stack. @returns Its stdout. */
async function keysCommand(
  stack: { dir: string; ADMIN_PORT?: number },
  args: string[],
): Promise<string> {
  // Without the run's DynamoDB Local and this file's tables: the stack's own, as a user has them.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => name !== 'DYNAMODB_ENDPOINT' && !name.endsWith('_TABLE_NAME'),
    ),
  );
  const { stdout } = await promisify(execFile)(
    resolve(REPOSITORY_ROOT, 'node_modules/.bin/tsx'),
    ['infra/cli/keys.ts', ...args],
    {
      cwd: REPOSITORY_ROOT,
      env: { ...inherited, PETSTORE_DIR: stack.dir, ADMIN_PORT: String(stack.ADMIN_PORT) },
    },
  );
  return stdout;
}

/** Waits until `condition` holds, checking every 100 ms, for at most 30 s. */
async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('Not within 30 s');
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

describe('npm start -- --regions', { timeout: 2 * START_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it('runs a gateway and a DynamoDB Local per region, replicates between them and serves the figures on both', async () => {
    const stack = {
      ...(await freshStack()),
      PORT: await stackPort(1),
      DYNAMODB_PORT: await stackPort(1),
    };
    secondPorts.push(stack.DYNAMODB_PORT + 1);
    const github = await serveGitHubKeys();
    const started = startLocalStack({
      ...stack,
      args: ['--regions', 'us-east-1,eu-west-1'],
      env: { REPLICATION_LAG_MS: '300', SECRET_SCANNING_KEYS_URL: github.url },
    });
    await waitFor(started, /^Ctrl-C stops/m, START_TIMEOUT_MS);

    const home = `http://127.0.0.1:${stack.PORT}/v1`;
    const other = `http://127.0.0.1:${stack.PORT + 1}/v1`;
    expect(started.stdout()).toMatch(new RegExp(`^Region us-east-1: ${home}$`, 'm'));
    expect(started.stdout()).toMatch(new RegExp(`^Region eu-west-1: ${other}$`, 'm'));
    expect(started.stdout()).toMatch(/^Home region: us-east-1 /m);
    expect(started.stdout()).toMatch(
      new RegExp(`^Admin API: http://127.0.0.1:${stack.ADMIN_PORT}/admin$`, 'm'),
    );
    expect(started.stdout()).toMatch(
      `\nSecret scanning: ${home}/secret-scanning/github, ${other}/secret-scanning/github\n`,
    );
    expect(dynamoDbLocalPids(stack.DYNAMODB_PORT)).toHaveLength(1);
    expect(dynamoDbLocalPids(stack.DYNAMODB_PORT + 1)).toHaveLength(1);
    const [, token] = started.stdout().match(/^ {2}pro +key_\w+ +(pet_local_\S+)$/m) ?? [];
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };

    // The keys, issued in the home region (by npm start, then by npm run keys), reach the other
    // one by replication (asked before, the authorizer's refusal would be cached for its TTL).
    const [issued] = (await keysCommand(stack, ['create', '--plan', 'free'])).match(
      /pet_local_\S+/,
    ) ?? [''];
    await until(async () => {
      const figures = (await (await fetch(new URL('/__local/replication', other))).json()) as {
        replicated: number;
        pending: number;
      };
      return figures.replicated >= 4 && figures.pending === 0;
    });
    expect((await fetch(`${other}/pets`, { headers })).status).toBe(200);
    const byCommand = await fetch(`${other}/pets`, {
      headers: { Authorization: `Bearer ${issued}` },
    });
    expect(byCommand.status).toBe(200);
    const created = await fetch(`${other}/pets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    const pet = (await created.json()) as { id: number };
    await until(async () => (await fetch(`${home}/pets/${pet.id}`, { headers })).status === 200);
    expect(await (await fetch(`${home}/pets`, { headers })).json()).toEqual([pet]);

    // A key reported to the other region is revoked where keys have their writer, then refused
    // in both (asked once replicated: never before, or its allowance would be cached).
    const [, leakedId, leaked] =
      started.stdout().match(/^ {2}business +(key_\w+) +(pet_local_\S+)$/m) ?? [];
    const replicated = async () =>
      (await (await fetch(new URL('/__local/replication', other))).json()) as {
        replicated: number;
        pending: number;
      };
    const before = (await replicated()).replicated;
    const body = JSON.stringify([match(leaked ?? '')]);
    const reported = await fetch(`${other}/secret-scanning/github`, {
      method: 'POST',
      body,
      headers: github.signedHeaders(body),
    });
    expect(reported.status).toBe(200);
    expect(await reported.json()).toEqual([expect.objectContaining({ label: 'true_positive' })]);
    expect(await keysCommand(stack, ['history', leakedId ?? ''])).toMatch(
      /key\.revoked.*github-secret-scanning/,
    );
    await until(async () => {
      const figures = await replicated();
      return figures.replicated > before && figures.pending === 0;
    });
    for (const base of [home, other]) {
      const refused = await fetch(`${base}/pets`, {
        headers: { Authorization: `Bearer ${leaked}` },
      });
      expect(refused.status).toBe(401);
    }
    const events = (await (await fetch(new URL('/__local/events', other))).json()) as {
      events: { detailType: string; region: string; detail: { keyId: string } }[];
    };
    expect(events.events).toEqual([
      expect.objectContaining({
        detailType: 'key.leaked',
        region: 'eu-west-1',
        detail: expect.objectContaining({ keyId: leakedId }),
      }),
    ]);
    await github.close();

    for (const base of [home, other]) {
      const figures = await fetch(new URL('/__local/replication', base));
      expect(figures.status).toBe(200);
      expect(figures.headers.get('content-type')).toBe('application/json');
      expect(await figures.json()).toEqual({
        lagMs: 300,
        replicated: expect.any(Number),
        conflicts: expect.any(Array),
        pending: expect.any(Number),
      });
    }
    expect(started.stderr()).toBe('');

    started.child.kill('SIGTERM');
    expect(await exitCodeWithin(started, EXIT_TIMEOUT_MS)).toBe(0);
    expect(dynamoDbLocalPids(stack.DYNAMODB_PORT)).toEqual([]);
    expect(dynamoDbLocalPids(stack.DYNAMODB_PORT + 1)).toEqual([]);
    await expect(fetch(`${other}/pets`)).rejects.toThrow();
  });

  it.each([
    [
      'us-east-1',
      '--regions needs two regions or more (the first is the home region), e.g. --regions us-east-1,eu-west-1; without --regions the stack has one.',
    ],
    [
      'us-east-1,europe',
      '--regions: "europe" is not a region name; give two or more, comma-separated, e.g. --regions us-east-1,eu-west-1',
    ],
    ['eu-west-1,eu-west-1', '--regions names eu-west-1 twice.'],
  ])('exits 1 with one line for --regions %s, starting nothing', async (regions, message) => {
    const stack = await freshStack();
    const started = startLocalStack({ ...stack, args: ['--regions', regions] });

    expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
    expect(started.stderr()).toBe(`${message}\n`);
    expect(started.stdout()).toBe('');
    expect(dynamoDbLocalPids(stack.DYNAMODB_PORT)).toEqual([]);
  });

  it('exits 1 with one line when DYNAMODB_ENDPOINT names one DynamoDB for several regions', async () => {
    const stack = await freshStack();
    const started = startLocalStack({
      ...stack,
      args: ['--regions', 'us-east-1,eu-west-1'],
      env: { DYNAMODB_ENDPOINT: inject('dynamoEndpoint') },
    });

    expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
    expect(started.stderr()).toBe(
      '--regions runs a DynamoDB Local per region, and DYNAMODB_ENDPOINT names one DynamoDB: drop one of them.\n',
    );
  });
});
