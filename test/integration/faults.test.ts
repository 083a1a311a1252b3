/**
 * Faults of the store, injected into a DynamoDB Local of this file's own (the run's shared one
 * serves the other files): frozen (`kill -STOP` on its JVM, a hang), killed (`kill -9`, an
 * outage), a table deleted (a lost dependency). Over HTTP through the local gateway, whose
 * functions get the deployed timeout (10 s) as their remaining time.
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PetstoreClient } from '../../client/src/index.ts';
import { createTables } from '../../infra/local/create-tables.ts';
import { type DynamoDBLocal, startDynamoDBLocal } from '../../infra/local/dynamodb-local.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { COUNTERS_TABLE } from '../../shared/dynamodb/tables.ts';
import type { Pet } from '../../shared/pets/schemas.ts';
import { issueToken } from '../support/api-client.ts';
import { stackPort } from '../support/local-stack.ts';
import { expectConformingResponse, readBody } from '../support/openapi-conformance.ts';

/** The issue's bound: every answer within 12 s of its request, whatever the store does. */
const ANSWER_BOUND_MS = 12_000;

let dynamo: DynamoDBLocal;
let port: number;
let gateway: LocalGateway;
let token: string;

/** This file's tables, on whichever DynamoDB Local runs at `port`. */
async function createOwnTables(): Promise<void> {
  const client = createDocumentClient();
  await createTables(client, (table) => process.env[table.envVar] ?? table.localName);
  client.destroy();
}

beforeAll(async () => {
  port = await stackPort();
  dynamo = await startDynamoDBLocal({ port });
  // Read by the functions when the gateway first loads them, and by every client made after.
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  await createOwnTables();
  gateway = await startGateway({ port: 0 });
  token = await issueToken('business');
  // Loads every handler and caches the key's authorizer result while the store is healthy.
  await call('GET', '/pets');
  await call('GET', '/pets/1');
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await dynamo?.stop();
});

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  /** Milliseconds from sending the request to reading the whole answer. */
  readonly elapsedMs: number;
}

/** One request with the key (or `init.token`); the answer must conform to docs/openapi.yaml. */
async function call(
  method: 'GET' | 'POST',
  path: string,
  init: { body?: unknown; idempotencyKey?: string; token?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${init.token ?? token}` };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  if (init.idempotencyKey) headers['Idempotency-Key'] = init.idempotencyKey;
  const started = performance.now();
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = await readBody(response);
  const elapsedMs = performance.now() - started;
  expectConformingResponse({ method, path: path.split('?')[0] ?? path }, response, body);
  return { status: response.status, headers: response.headers, body, elapsedMs };
}

function expectUnavailable(answer: Answer): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(503);
  expect(answer.headers.get('retry-after')).toBe('5');
  expect(answer.body).toMatchObject({ code: 'service_unavailable', status: 503 });
  expect(answer.elapsedMs).toBeLessThan(ANSWER_BOUND_MS);
}

/** Runs `during` while DynamoDB Local's JVM is stopped, and resumes it however `during` ends. */
async function whileFrozen<T>(during: () => Promise<T>): Promise<T> {
  process.kill(dynamo.pid, 'SIGSTOP');
  try {
    return await during();
  } finally {
    process.kill(dynamo.pid, 'SIGCONT');
  }
}

/** Pets named `name` in the store. */
async function petsNamed(name: string): Promise<Pet[]> {
  const { pets: all } = await createContainer().pets.listPets({ limit: 100 });
  return all.filter((pet) => pet.name === name);
}

/**
 * Sends the create again with the same key until it is answered 201, honouring `Retry-After` as a
 * client should (bounded: 10 tries).
 */
async function retryCreate(body: unknown, idempotencyKey: string): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const answer = await call('POST', '/pets', { body, idempotencyKey });
    if (answer.status === 201 || attempt === 10) return answer;
    const seconds = Number(answer.headers.get('retry-after') ?? 1);
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}

describe('a frozen store (a hang)', () => {
  it('gives every operation and the authorizer a 503 with Retry-After within the bound, and answers again once it thaws', async () => {
    const fresh = await issueToken('free');
    const [create, get, list, authorize] = await whileFrozen(() =>
      Promise.all([
        call('POST', '/pets', { body: { name: 'Frozen', categoryId: 1 } }),
        call('GET', '/pets/1'),
        // A page no request has read: listPets' page cache may answer one it holds (docs/api.md).
        call('GET', '/pets?status=available&limit=37'),
        call('GET', '/pets', { token: fresh }),
      ]),
    );

    for (const answer of [create, get, list, authorize]) expectUnavailable(answer);
    expect(create.body).toMatchObject({
      message: expect.stringContaining('the pet may or may not have been created'),
    });
    expect(authorize.body).toMatchObject({
      message: 'The API key could not be checked; retry after 5 seconds.',
    });

    const after = await Promise.all([
      call('POST', '/pets', { body: { name: 'Thawed', categoryId: 1 } }),
      call('GET', '/pets?status=available'),
      call('GET', '/pets', { token: fresh }),
    ]);
    expect(after.map((answer) => answer.status)).toEqual([201, 200, 200]);
  });

  // Frozen at once, the record cannot even be taken; frozen a little later, the store hangs
  // within the create itself. Either way the outcome is unknown to the client, and a retry with
  // the same key must leave exactly one pet.
  it.each([0, 20])(
    'leaves exactly one pet when a create with Idempotency-Key fails (frozen after %i ms) and is retried with the same key',
    async (freezeAfterMs) => {
      const name = `Once ${randomUUID()}`;
      const key = randomUUID();
      const body = { name, categoryId: 1 };

      const sent = call('POST', '/pets', { body, idempotencyKey: key });
      await new Promise((resolve) => setTimeout(resolve, freezeAfterMs));
      const first = await whileFrozen(() => sent);
      const retried = await retryCreate(body, key);
      const again = await call('POST', '/pets', { body, idempotencyKey: key });

      if (first.status !== 201) {
        expectUnavailable(first);
        expect((first.body as { message: string }).message).toMatch(
          /Retry with the same Idempotency-Key|so the request was not run/,
        );
      }
      expect(retried.status).toBe(201);
      expect(await petsNamed(name)).toEqual([retried.body]);
      expect(again.body).toEqual(retried.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    },
  );
});

describe('the official client (client/)', () => {
  // As above: frozen before the create can take its record, or within the create itself.
  it.each([0, 20])(
    'creates exactly one pet when its createPet meets a store frozen after %i ms, retrying after the thaw',
    async (freezeAfterMs) => {
      const name = `Client ${randomUUID()}`;
      const retried: string[] = [];
      const petstore = new PetstoreClient({
        baseUrl: gateway.url,
        apiKey: token,
        retry: {
          maxAttempts: 5,
          maxElapsedMs: 90_000,
          // Thawed once an attempt has failed: the retries meet a store that answers again.
          onRetry: ({ error }) => {
            retried.push(error.code);
            process.kill(dynamo.pid, 'SIGCONT');
          },
        },
      });

      const sent = petstore.createPet({ name, categoryId: 1 });
      await new Promise((resolve) => setTimeout(resolve, freezeAfterMs));
      process.kill(dynamo.pid, 'SIGSTOP');
      const created = await sent.finally(() => process.kill(dynamo.pid, 'SIGCONT'));

      expect(created.status).toBe(201);
      // Frozen at once, the first attempt cannot succeed; 20 ms in, it may have finished.
      if (freezeAfterMs === 0) expect(retried[0]).toBe('service_unavailable');
      expect(created.attempts).toBe(retried.length + 1);
      for (const code of retried) {
        expect(['service_unavailable', 'idempotency_request_in_progress']).toContain(code);
      }
      expect(await petsNamed(name)).toEqual([created.data]);
    },
    120_000,
  );
});

describe('a lost table', () => {
  it('still creates without Idempotency-Key when the counters table is gone (the limiter fails open)', async () => {
    const client = createDocumentClient();
    try {
      await client.send(new DeleteTableCommand({ TableName: process.env[COUNTERS_TABLE.envVar] }));

      const created = await call('POST', '/pets', { body: { name: 'No counters', categoryId: 1 } });

      expect(created.status).toBe(201);
      expect(created.headers.get('x-ratelimit-remaining')).toBeNull();
    } finally {
      await createOwnTables();
      client.destroy();
    }
  });
});

describe('a killed store (an outage)', () => {
  it('answers 503 with Retry-After while DynamoDB Local is down, and again once it is back, without a restart', async () => {
    process.kill(dynamo.pid, 'SIGKILL');
    await dynamo.stop();

    const down = await Promise.all([
      call('POST', '/pets', { body: { name: 'Down', categoryId: 1 } }),
      call('GET', '/pets'),
      call('GET', '/pets/1'),
    ]);
    for (const answer of down) expectUnavailable(answer);

    dynamo = await startDynamoDBLocal({ port });
    await createOwnTables();
    // The in-memory store came back empty, and the key's cached authorizer result may have lapsed.
    token = await issueToken('business');
    const up = await Promise.all([
      call('POST', '/pets', { body: { name: 'Up', categoryId: 1 } }),
      call('GET', '/pets'),
    ]);
    expect(up.map((answer) => answer.status)).toEqual([201, 200]);
  });
});
