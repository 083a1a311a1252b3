/**
 * createPet with Idempotency-Key (draft-ietf-httpapi-idempotency-key-header-07, Stripe's replay
 * rules), through the real handler on DynamoDB Local.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { createLambdaContext } from '../../infra/local/events.ts';
import { withGrants } from '../../infra/local/iam.ts';
import { routeOf } from '../../infra/routes.ts';
import { createDocumentClient } from '../../shared/clients.ts';
import { createContainer } from '../../shared/container.ts';
import { DynamoDBIdempotencyStore } from '../../shared/idempotency/dynamodb-idempotency-store.ts';
import { IDEMPOTENCY_RECORD_TTL_SECONDS } from '../../shared/idempotency/idempotency-store.ts';
import { idempotencyKeyOf, requestFingerprint } from '../../shared/idempotency/key.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { IDEMPOTENCY_TABLE } from '../../shared/tables.ts';
import { authorizedEvent, TEST_KEY, withoutRateLimitHeaders } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { clientLosingFirstAnswer } from '../support/lossy-client.ts';

const { handler } = await withGrants(
  routeOf('createPet'),
  () => import('../../functions/create-pet.ts'),
);

const client = createDocumentClient();
const records = requiredSetting(readSettings(), IDEMPOTENCY_TABLE.envVar);
const store = createContainer().pets;
afterAll(() => client.destroy());

const OTHER_KEY = { ...TEST_KEY, keyId: `key_${randomBytes(8).toString('hex')}` as const };

/** `POST /pets` with these headers, as `key` (default TEST_KEY). */
async function createPet(
  body: string,
  headers: Record<string, string | string[]>,
  key: typeof TEST_KEY = TEST_KEY,
): Promise<APIGatewayProxyResult> {
  const event = authorizedEvent(
    {
      method: 'POST',
      resource: '/pets',
      path: '/pets',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    },
    key,
  );
  return withoutRateLimitHeaders(await handler(event, createLambdaContext('petstore-create-pet')));
}

const REX = '{"name":"Rex","categoryId":1}';

/** How many pets are named `name` (unique per test). */
async function petsNamed(name: string): Promise<number> {
  const { pets: all } = await store.listPets({ limit: 100 });
  return all.filter((pet) => pet.name === name).length;
}

function uniqueName(): string {
  return `Pet ${randomUUID()}`;
}

describe('idempotencyKeyOf', () => {
  const event = (value: string | string[]) =>
    authorizedEvent({
      method: 'POST',
      resource: '/pets',
      path: '/pets',
      headers: { 'idempotency-key': value },
    });

  it('reads a Structured Field string and the same characters unquoted as one key', () => {
    expect(idempotencyKeyOf(event('"8e03978e-40d5-43e8-bc93-6894a57f9324"'))).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(idempotencyKeyOf(event('8e03978e-40d5-43e8-bc93-6894a57f9324'))).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(idempotencyKeyOf(event('"a\\"b\\\\c"'))).toBe('a"b\\c');
    expect(idempotencyKeyOf(event('x'.repeat(255)))).toBe('x'.repeat(255));
  });

  it('is undefined without the header', () => {
    expect(
      idempotencyKeyOf(authorizedEvent({ method: 'POST', resource: '/pets', path: '/pets' })),
    ).toBeUndefined();
  });

  it('refuses anything but 1 to 255 visible ASCII characters, and a repeated header', () => {
    for (const value of ['', '""', 'x'.repeat(256), 'two words', '"two words"', 'clé', '"open']) {
      expect(() => idempotencyKeyOf(event(value)), value).toThrow(
        'Idempotency-Key: must be 1 to 255 visible ASCII characters, optionally as a quoted string',
      );
    }
    expect(() => idempotencyKeyOf(event(['a', 'b']))).toThrow(
      'Idempotency-Key: is given 2 times; send it once',
    );
  });
});

describe('requestFingerprint', () => {
  it('ignores key order and white space, and nothing else', () => {
    const a = requestFingerprint(JSON.parse('{"name":"Rex","categoryId":1}'));
    expect(requestFingerprint(JSON.parse('{ "categoryId" : 1, "name" : "Rex" }'))).toBe(a);
    expect(requestFingerprint(JSON.parse('{"name":"Rex","categoryId":2}'))).not.toBe(a);
    expect(requestFingerprint(JSON.parse('{"name":"Rex"}'))).not.toBe(a);
  });
});

describe('DynamoDBIdempotencyStore.begin', () => {
  it('runs the request when the retried put finds its own record (the first answer was lost)', async () => {
    const lossy = clientLosingFirstAnswer('PutItemCommand', routeOf('createPet'));
    try {
      const begun = await new DynamoDBIdempotencyStore(lossy, records).begin(
        `${TEST_KEY.keyId}#${randomUUID()}`,
        requestFingerprint({ name: 'Rex' }),
        { nowMs: Date.now(), lockedUntil: Date.now() + 5_000 },
      );

      expect(begun.outcome).toBe('run');
    } finally {
      lossy.destroy();
    }
  });
});

describe('createPet with Idempotency-Key', () => {
  it('creates once and replays the first answer, with Idempotent-Replayed, to the same request', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const first = await createPet(JSON.stringify({ name, categoryId: 3 }), {
      'Idempotency-Key': key,
    });
    const repeat = await createPet(JSON.stringify({ categoryId: 3, name }, null, 2), {
      'Idempotency-Key': `"${key}"`,
    });

    expect(first.statusCode).toBe(201);
    expect(first.headers).not.toHaveProperty('Idempotent-Replayed');
    expect(repeat).toEqual({
      ...first,
      headers: { ...first.headers, 'Idempotent-Replayed': 'true' },
    });
    expect(await petsNamed(name)).toBe(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another body, creating nothing', async () => {
    const key = randomUUID();
    const name = uniqueName();
    await createPet(JSON.stringify({ name, categoryId: 1 }), { 'Idempotency-Key': key });

    const other = await createPet(JSON.stringify({ name, categoryId: 2 }), {
      'Idempotency-Key': key,
    });

    expect(other).toEqual(
      errorResponse(
        422,
        'idempotency_key_reused',
        'Idempotency-Key: was used with a different request body; send a new key for a new request.',
      ),
    );
    expect(await petsNamed(name)).toBe(1);
  });

  it('scopes keys to the API key: the same value from another key is another request', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const body = JSON.stringify({ name, categoryId: 1 });

    const ours = await createPet(body, { 'Idempotency-Key': key });
    const theirs = await createPet(body, { 'Idempotency-Key': key }, OTHER_KEY);

    expect([ours.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(theirs.body).not.toBe(ours.body);
    expect(await petsNamed(name)).toBe(2);
  });

  it('makes one pet of 10 concurrent identical requests; the others replay it or answer 409', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const body = JSON.stringify({ name, categoryId: 1 });

    const answers = await Promise.all(
      Array.from({ length: 10 }, () => createPet(body, { 'Idempotency-Key': key })),
    );

    expect(await petsNamed(name)).toBe(1);
    const created = answers.filter((a) => a.statusCode === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body)).size).toBe(1);
    for (const answer of answers.filter((a) => a.statusCode !== 201)) {
      expect(answer.statusCode).toBe(409);
      expect(JSON.parse(answer.body).code).toBe('idempotency_request_in_progress');
      expect(Number(answer.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    }
    const retry = await createPet(body, { 'Idempotency-Key': key });
    expect(retry.body).toBe(created[0]?.body);
  });

  it('answers 409 with Retry-After while another attempt holds the request', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ name: uniqueName(), categoryId: 1 });
    await client.send(
      new PutCommand({
        TableName: records,
        Item: {
          id: `${TEST_KEY.keyId}#${key}`,
          status: 'INPROGRESS',
          fingerprint: requestFingerprint(JSON.parse(body)),
          lockToken: randomUUID(),
          lockedUntil: Date.now() + 5_000,
          expiresAt: Math.floor(Date.now() / 1000) + 3_600,
        },
      }),
    );

    const answer = await createPet(body, { 'Idempotency-Key': key });

    expect(answer.statusCode).toBe(409);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'idempotency_request_in_progress' });
    expect(['5', '4']).toContain(answer.headers?.['Retry-After']);
  });

  it('runs the request once more when the attempt that held it died without writing', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const body = JSON.stringify({ name, categoryId: 1 });
    await client.send(
      new PutCommand({
        TableName: records,
        Item: {
          id: `${TEST_KEY.keyId}#${key}`,
          status: 'INPROGRESS',
          fingerprint: requestFingerprint(JSON.parse(body)),
          lockToken: randomUUID(),
          lockedUntil: Date.now() - 1,
          expiresAt: Math.floor(Date.now() / 1000) + 3_600,
        },
      }),
    );

    const answer = await createPet(body, { 'Idempotency-Key': key });

    expect(answer.statusCode).toBe(201);
    expect(await petsNamed(name)).toBe(1);
  });

  it('stores no validation error: the same key then runs a valid body', async () => {
    const key = randomUUID();
    const invalid = await createPet('{"name":"Rex"}', { 'Idempotency-Key': key });
    const valid = await createPet(REX, { 'Idempotency-Key': key });

    expect(invalid.statusCode).toBe(400);
    expect(valid.statusCode).toBe(201);
    expect(valid.headers).not.toHaveProperty('Idempotent-Replayed');
  });

  it('answers 400 invalid_idempotency_key for a malformed key, creating nothing', async () => {
    const name = uniqueName();
    const answer = await createPet(JSON.stringify({ name, categoryId: 1 }), {
      'Idempotency-Key': 'not visible ascii: é',
    });

    expect(answer).toEqual(
      errorResponse(
        400,
        'invalid_idempotency_key',
        'Idempotency-Key: must be 1 to 255 visible ASCII characters, optionally as a quoted string',
      ),
    );
    expect(await petsNamed(name)).toBe(0);
  });

  it('keeps each record 24 hours (TTL on expiresAt)', async () => {
    const key = randomUUID();
    const before = Math.floor(Date.now() / 1000);
    await createPet(REX, { 'Idempotency-Key': key });

    const { Item } = await client.send(
      new GetCommand({ TableName: records, Key: { id: `${TEST_KEY.keyId}#${key}` } }),
    );

    expect(Item?.status).toBe('COMPLETED');
    expect(Item?.expiresAt - before).toBeGreaterThanOrEqual(IDEMPOTENCY_RECORD_TTL_SECONDS);
    expect(Item?.expiresAt - before).toBeLessThanOrEqual(IDEMPOTENCY_RECORD_TTL_SECONDS + 5);
  });

  // Last: it deletes this file's idempotency table.
  it('answers 503 with a key when the records are gone, and still creates without one', async () => {
    await client.send(new DeleteTableCommand({ TableName: records }));
    const name = uniqueName();
    const body = JSON.stringify({ name, categoryId: 1 });

    const withKey = await createPet(body, { 'Idempotency-Key': randomUUID() });
    const withoutKey = await createPet(body, {});

    expect(withKey).toEqual({
      ...errorResponse(
        503,
        'service_unavailable',
        'The idempotency records are unavailable, so the request was not run. Retry after 5 seconds.',
      ),
      headers: { 'Content-Type': 'application/json', 'Retry-After': '5' },
    });
    expect(withoutKey.statusCode).toBe(201);
    expect(await petsNamed(name)).toBe(1);
  });
});
