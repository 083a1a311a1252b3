/**
 * createPet with Idempotency-Key on DynamoDB Local, where DynamoDB itself is the point: a record
 * another attempt wrote, the records' TTL, a put whose answer was lost, the table gone. The rest of
 * the replay rules run on in-memory adapters (test/unit/idempotency.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { withGrants } from '../../infra/local/iam.ts';
import { routeOf } from '../../infra/routes.ts';
import { createDocumentClient } from '../../shared/clients.ts';
import { createContainer } from '../../shared/container.ts';
import { DynamoDBIdempotencyStore } from '../../shared/idempotency/dynamodb-idempotency-store.ts';
import { IDEMPOTENCY_RECORD_TTL_SECONDS } from '../../shared/idempotency/idempotency-store.ts';
import { requestFingerprint } from '../../shared/idempotency/key.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { IDEMPOTENCY_TABLE } from '../../shared/tables.ts';
import { TEST_KEY } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { idempotentCreates, REX, uniqueName } from '../support/idempotent-creates.ts';
import { clientLosingFirstAnswer } from '../support/lossy-client.ts';

const { handler } = await withGrants(
  routeOf('createPet'),
  () => import('../../functions/create-pet.ts'),
);

const client = createDocumentClient();
const records = requiredSetting(readSettings(), IDEMPOTENCY_TABLE.envVar);
const { createPet, petsNamed } = idempotentCreates(handler, createContainer().pets);
afterAll(() => client.destroy());

/** Writes the record of an attempt at `body` with `key` that holds it until `lockedUntil` (ms). */
async function holdRecord(key: string, body: string, lockedUntil: number): Promise<void> {
  await client.send(
    new PutCommand({
      TableName: records,
      Item: {
        id: `${TEST_KEY.keyId}#${key}`,
        status: 'INPROGRESS',
        fingerprint: requestFingerprint(JSON.parse(body)),
        lockToken: randomUUID(),
        lockedUntil,
        expiresAt: Math.floor(Date.now() / 1000) + 3_600,
      },
    }),
  );
}

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
  it('answers 409 with Retry-After while another attempt holds the request', async () => {
    const key = randomUUID();
    const body = JSON.stringify({ name: uniqueName(), categoryId: 1 });
    await holdRecord(key, body, Date.now() + 5_000);

    const answer = await createPet(body, { 'Idempotency-Key': key });

    expect(answer.statusCode).toBe(409);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'idempotency_request_in_progress' });
    expect(['5', '4']).toContain(answer.headers?.['Retry-After']);
  });

  it('runs the request once more when the attempt that held it died without writing', async () => {
    const key = randomUUID();
    const name = uniqueName();
    const body = JSON.stringify({ name, categoryId: 1 });
    await holdRecord(key, body, Date.now() - 1);

    const answer = await createPet(body, { 'Idempotency-Key': key });

    expect(answer.statusCode).toBe(201);
    expect(await petsNamed(name)).toBe(1);
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
