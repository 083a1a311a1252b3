/**
 * `npm start`: the local stack as a user runs it, in a child process (test/support/local-stack.ts):
 * start-up, its one-line failures (a port in use, both ports equal, an invalid setting, no Java),
 * the in-memory option, stopping on SIGTERM, a DynamoDB of one's own (`DYNAMODB_ENDPOINT`, here
 * the run's DynamoDB Local), the API reference page rendered in headless Chromium, and the admin
 * API's banner line and signature check.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { adminApiClient } from '../../infra/cli/admin-api-client.ts';
import { NPM_START_ACTOR } from '../../infra/local/banner.ts';
import { createTables } from '../../infra/local/create-tables.ts';
import {
  dataDirectory,
  generateCredentials,
  LOCAL_REGION,
  readCredentials,
  writeCredentials,
} from '../../infra/local/stack-files.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { KEYS_TABLE, TABLES } from '../../shared/dynamodb/tables.ts';
import { CHROMIUM, CHROMIUM_FLAGS, chromiumEnv } from '../support/chromium.ts';
import {
  descendantCommandLines,
  dynamoDbLocalPids,
  EXIT_TIMEOUT_MS,
  exitCodeWithin,
  freshStack,
  lastLine,
  START_TIMEOUT_MS,
  startedStack,
  startLocalStack,
  stopAll,
} from '../support/local-stack.ts';
import { documentedOperations } from '../support/openapi-document.ts';
import { seedKey } from '../support/test-keys.ts';

afterEach(stopAll);

async function occupy(port: number): Promise<Server> {
  const server = createServer().listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

describe('npm start', { timeout: 2 * START_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it('serves the API with the keys it issues and the leaked-key endpoint, warns of nothing, and stops DynamoDB Local on SIGTERM', async () => {
    const stack = await freshStack();
    const { started, url } = await startedStack(stack);

    expect(url).toBe(`http://127.0.0.1:${stack.PORT}/v1`);
    const tokens = [
      ...started.stdout().matchAll(/^ {2}(free|pro|business) +key_\w+ +(pet_local_\S+)$/gm),
    ];
    expect(tokens.map(([, plan]) => plan)).toEqual(['free', 'pro', 'business']);
    const response = await fetch(`${url}/pets`, {
      headers: { Authorization: `Bearer ${tokens[0]?.[2]}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
    // The leaked-key endpoint, on a line of its own, takes no key: GitHub's signature, or 401.
    expect(started.stdout()).toContain(`\nSecret scanning: ${url}/secret-scanning/github\n`);
    const unsigned = await fetch(`${url}/secret-scanning/github`, { method: 'POST', body: '[]' });
    expect(unsigned.status).toBe(401);
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

  it('exits 1 with one line naming an invalid setting', async () => {
    const stack = await freshStack();
    const started = startLocalStack({ ...stack, env: { PORT: '3000x' } });

    expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
    expect(started.stderr().trim()).toBe(
      'Environment variable PORT must be a port number from 0 to 65535, not "3000x"',
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

  it('prints its help and exits 0 for --help, starting nothing', async () => {
    const stack = await freshStack();
    const started = startLocalStack({ ...stack, args: ['--help'] });

    expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(0);
    expect(started.stdout()).toMatch(/^Usage: npm start -- \[options\]$/m);
    expect(started.stdout()).toContain('--in-memory');
    expect(started.stderr()).toBe('');
    expect(dynamoDbLocalPids(stack.DYNAMODB_PORT)).toEqual([]);
  });

  it('exits 2 with the message and the help for an unknown option, starting nothing', async () => {
    const stack = await freshStack();
    const started = startLocalStack({ ...stack, args: ['--in-memroy'] });

    expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(2);
    expect(started.stderr().split('\n')[0]).toBe("error: unknown option '--in-memroy'");
    expect(started.stderr()).toMatch(/^Usage: npm start -- \[options\]$/m);
    expect(started.stdout()).toBe('');
    expect(dynamoDbLocalPids(stack.DYNAMODB_PORT)).toEqual([]);
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

describe('npm start on a DynamoDB of your own (DYNAMODB_ENDPOINT)', {
  timeout: START_TIMEOUT_MS + EXIT_TIMEOUT_MS,
}, () => {
  const endpoint = inject('dynamoEndpoint');

  it('serves the API there, creates only the tables missing, and starts no DynamoDB Local', async () => {
    // GIVEN a stack directory whose credentials see, on that DynamoDB, only a keys table with a key
    const stack = await freshStack();
    const credentials = generateCredentials();
    writeCredentials(stack.dir, credentials);
    const client = createDocumentClient({
      endpoint,
      local: { ...credentials, region: LOCAL_REGION },
    });
    await createTables(client);
    for (const table of TABLES.filter((table) => table !== KEYS_TABLE)) {
      await client.send(new DeleteTableCommand({ TableName: table.localName }));
    }
    const { token } = await seedKey(
      { plan: 'pro' },
      {},
      { client, tableName: KEYS_TABLE.localName },
    );

    // WHEN npm start runs with DYNAMODB_ENDPOINT
    const { started, url } = await startedStack({
      ...stack,
      inMemory: false,
      env: { DYNAMODB_ENDPOINT: endpoint },
    });

    // THEN it serves with the key already there, issuing none, on the tables it created
    expect(started.stdout()).toMatch(
      new RegExp(`^DynamoDB: ${endpoint} \\(DYNAMODB_ENDPOINT\\)$`, 'm'),
    );
    expect(started.stdout()).not.toMatch(/Keys issued/);
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${url}/pets`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
    });
    expect(created.status).toBe(201);
    const listed = await fetch(`${url}/pets`, { headers });
    expect(await listed.json()).toEqual([expect.objectContaining({ name: 'Rex' })]);
    const { TableNames } = await client.send(new ListTablesCommand({}));
    expect(TableNames?.sort()).toEqual(TABLES.map((table) => table.localName).sort());
    expect(descendantCommandLines(started.child.pid as number)).not.toContainEqual(
      expect.stringMatching(/java|DynamoDBLocal/),
    );
    expect(started.stderr()).toBe('');
    client.destroy();

    started.child.kill('SIGTERM');
    expect(await exitCodeWithin(started, EXIT_TIMEOUT_MS)).toBe(0);
  });

  it('exits 1 with one line naming the endpoint when DYNAMODB_ENDPOINT does not answer', async () => {
    const stack = await freshStack();
    const dead = `http://127.0.0.1:${stack.DYNAMODB_PORT}`;

    const started = startLocalStack({
      ...stack,
      inMemory: false,
      env: { DYNAMODB_ENDPOINT: dead },
    });

    expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
    expect(started.stderr()).toBe(
      `DynamoDB at ${dead} (DYNAMODB_ENDPOINT) does not answer: connect ECONNREFUSED 127.0.0.1:${stack.DYNAMODB_PORT}; start it, or unset DYNAMODB_ENDPOINT so that npm start runs DynamoDB Local.\n`,
    );
    expect(started.stdout()).toBe('');
  });

  it('exits 1 with one line when --in-memory asks for data that no DynamoDB Local of its own keeps', async () => {
    const started = startLocalStack({
      ...(await freshStack()),
      env: { DYNAMODB_ENDPOINT: endpoint },
    });

    expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
    expect(started.stderr()).toBe(
      '--in-memory keeps the data of the DynamoDB Local that npm start runs, and with DYNAMODB_ENDPOINT set it runs none: drop one of them.\n',
    );
  });
});

describe('the API reference at /docs', { timeout: START_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it('renders every operation of the document offline in headless Chromium, with the local stack as server', async () => {
    const stack = await freshStack();
    const { url } = await startedStack(stack);
    const docs = `http://127.0.0.1:${stack.PORT}/docs`;
    const profile = await mkdtemp(join(tmpdir(), 'petstore-chromium-'));
    try {
      const { stdout } = await promisify(execFile)(
        CHROMIUM,
        [
          '--headless',
          ...CHROMIUM_FLAGS,
          `--user-data-dir=${profile}`,
          '--virtual-time-budget=15000',
          '--dump-dom',
          docs,
        ],
        { timeout: 60_000, maxBuffer: 64 * 1024 * 1024, env: chromiumEnv() },
      );

      const operations = [
        ...stdout.matchAll(/class="opblock-summary-operation-id"[^>]*>([^<]+)</g),
      ].map(([, id]) => id);
      expect(operations.sort()).toEqual(
        documentedOperations()
          .map(({ operation }) => String(operation.operationId))
          .sort(),
      );
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

describe('the admin API of npm start', { timeout: START_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it("prints its base URL on a line of its own and answers only requests signed with the stack's credentials", async () => {
    const stack = await freshStack();
    const { started } = await startedStack(stack);
    const [, adminUrl = ''] = /^Admin API: (\S+)$/m.exec(started.stdout()) ?? [];
    const credentials = readCredentials(stack.dir);
    const admin = adminApiClient({
      baseUrl: adminUrl,
      region: LOCAL_REGION,
      credentials: credentials ?? { accessKeyId: '', secretAccessKey: '' },
    });

    const signed = await admin.GET('/keys');
    const unsigned = await fetch(`${adminUrl}/keys`);
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const firstKeys = await admin.GET('/audit', {
      params: { query: { since, actor: NPM_START_ACTOR } },
    });

    expect(adminUrl).toBe(`http://127.0.0.1:${stack.ADMIN_PORT}/admin`);
    expect(signed.response.status).toBe(200);
    // Every key in the table's order (a page of the keys' head items), not by creation.
    expect(signed.data?.keys.map(({ key }) => key.plan).sort()).toEqual([
      'business',
      'free',
      'pro',
    ]);
    // The keys npm start issued are on record, as every key: one key.created entry each.
    expect(firstKeys.data?.entries.map(({ event, actor }) => [event, actor])).toEqual(
      ['free', 'pro', 'business'].map(() => [
        'key.created',
        { type: 'system', id: 'local:npm-start' },
      ]),
    );
    expect(unsigned.status).toBe(403);
    // The public API's paths are no paths of the admin API: an IAM RestApi's 403.
    expect(await fetch(`${adminUrl.replace(/\/admin$/, '/v1')}/pets`)).toMatchObject({
      status: 403,
    });
  });
});
