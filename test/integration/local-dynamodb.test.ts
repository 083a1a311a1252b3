/**
 * DynamoDB Local as `npm start` runs it (test/support/local-stack.ts): locked down (its tables
 * seen only with the stack's credentials, kept in a file only its owner reads; CORS for the
 * stack's own origin; telemetry off), and its supervision with real `kill -9` (restarted on disk,
 * the stack stopped in memory, an orphan stopped at the next start).
 */
import { spawnSync } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CREDENTIALS_FILE,
  commandLine,
  LOCAL_REGION,
  readCredentials,
} from '../../infra/local/stack-files.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import {
  dynamoDbLocalPids,
  EXIT_TIMEOUT_MS,
  exitCodeWithin,
  freshStack,
  START_TIMEOUT_MS,
  type StackOptions,
  type Started,
  startedStack,
  stopAll,
  waitFor,
} from '../support/local-stack.ts';

/** The first key the banner shows, e.g. the Free key of a new store. */
function firstToken(started: Started): string {
  return /^ {2}free +key_\w+ +(pet_local_\S+)$/m.exec(started.stdout())?.[1] ?? '';
}

/** What the stack's pid file of a DynamoDB port records. */
async function pidRecord(dir: string, port: number): Promise<{ stack: number; dynamodb: number }> {
  return JSON.parse(await readFile(join(dir, `dynamodb-local-${port}.pid`), 'utf8'));
}

function isRunning(pid: number): boolean {
  return commandLine(pid) !== undefined;
}

describe('DynamoDB Local of the stack', () => {
  // One stack for the checks that only read it.
  let stack: StackOptions;
  beforeAll(async () => {
    stack = await freshStack();
    await startedStack(stack);
  }, START_TIMEOUT_MS);
  afterAll(stopAll, EXIT_TIMEOUT_MS);

  it('shows its tables only to the stack credentials, kept in a file only its owner reads', async () => {
    const endpoint = `http://127.0.0.1:${stack.DYNAMODB_PORT}`;
    const credentials = readCredentials(stack.dir);
    const tablesSeenWith = async (local: { accessKeyId: string; secretAccessKey: string }) => {
      const client = createDocumentClient({ endpoint, local: { ...local, region: LOCAL_REGION } });
      try {
        return (await client.send(new ListTablesCommand({}))).TableNames;
      } finally {
        client.destroy();
      }
    };

    expect(credentials).toBeDefined();
    expect(await tablesSeenWith(credentials as NonNullable<typeof credentials>)).toContain(
      KEYS_TABLE.localName,
    );
    expect(await tablesSeenWith({ accessKeyId: 'local', secretAccessKey: 'local' })).toEqual([]);
    expect((await stat(join(stack.dir, CREDENTIALS_FILE))).mode & 0o777).toBe(0o600);
  });

  it("answers CORS preflights for the stack's own origin only, and runs with telemetry off", async () => {
    const preflight = (origin: string) =>
      fetch(`http://127.0.0.1:${stack.DYNAMODB_PORT}/`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type,x-amz-target',
        },
      });

    const foreign = await preflight('http://attacker.example');
    const own = await preflight(`http://127.0.0.1:${stack.PORT}`);

    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    expect(own.headers.get('access-control-allow-origin')).toBe(`http://127.0.0.1:${stack.PORT}`);
    const [javaPid] = dynamoDbLocalPids(stack.DYNAMODB_PORT);
    const args = spawnSync('ps', ['-o', 'args=', '-p', String(javaPid)], { encoding: 'utf8' });
    expect(args.stdout).toContain('-disableTelemetry');
    expect(args.stdout).not.toContain('-sharedDb');
  });
});

describe('supervision of DynamoDB Local', {
  timeout: 2 * START_TIMEOUT_MS + EXIT_TIMEOUT_MS,
}, () => {
  afterEach(stopAll);

  it('restarts DynamoDB Local of a stack on disk killed with SIGKILL, says so in one line, and keeps the data', async () => {
    const stack = await freshStack();
    const { started, url } = await startedStack({ ...stack, inMemory: false });
    const headers = { Authorization: `Bearer ${firstToken(started)}` };
    const created = await fetch(`${url}/pets`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    const [javaPid] = dynamoDbLocalPids(stack.DYNAMODB_PORT);

    process.kill(javaPid as number, 'SIGKILL');

    const [line] = await waitFor(
      started,
      /^DynamoDB Local exited \(signal SIGKILL\); restarted it \(pid \d+\)\.$/m,
      START_TIMEOUT_MS,
      'stderr',
    );
    expect(started.stderr().trim()).toBe(line);
    const listed = await fetch(`${url}/pets`, { headers });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual([expect.objectContaining({ name: 'Rex' })]);
    expect((await pidRecord(stack.dir, stack.DYNAMODB_PORT)).dynamodb).not.toBe(javaPid);
  });

  it('exits 1 with one line naming DynamoDB Local when that of an in-memory stack is killed', async () => {
    const stack = await freshStack();
    const { started } = await startedStack(stack);
    const [javaPid] = dynamoDbLocalPids(stack.DYNAMODB_PORT);

    process.kill(javaPid as number, 'SIGKILL');

    expect(await exitCodeWithin(started, EXIT_TIMEOUT_MS)).toBe(1);
    expect(started.stderr().trim()).toBe(
      'DynamoDB Local exited (signal SIGKILL); the in-memory data is gone, so the stack stops.',
    );
  });

  it('stops the DynamoDB Local that a gateway killed with SIGKILL left behind, at the next start', async () => {
    // GIVEN a stack whose own process was killed hard, its DynamoDB Local left running
    const stack = await freshStack();
    const { started } = await startedStack(stack);
    const { stack: stackPid, dynamodb: orphan } = await pidRecord(stack.dir, stack.DYNAMODB_PORT);
    process.kill(stackPid, 'SIGKILL');
    await exitCodeWithin(started, EXIT_TIMEOUT_MS).catch(() => undefined);
    expect(isRunning(orphan)).toBe(true);

    // WHEN the next npm start runs on the same port
    const next = await startedStack(stack);

    // THEN it has stopped the orphan, said so, and serves
    expect(isRunning(orphan)).toBe(false);
    expect(next.started.stderr().trim()).toBe(
      `Stopped DynamoDB Local (pid ${orphan}) left behind by an earlier npm start.`,
    );
    expect((await fetch(`${next.url}/pets`)).status).toBe(401);
  });
});
