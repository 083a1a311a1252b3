/**
 * createPet with Idempotency-Key on DynamoDB Local, where DynamoDB itself is the point: the one
 * transaction of pet and record (replay, another body, concurrent duplicates), a record past its
 * expiry, the records' TTL, a transaction whose answer was lost, the table gone. The rest of the
 * replay rules run on in-memory adapters (test/unit/idempotency.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createHandler } from '../../functions/create-pet.ts';
import { createPetHandler } from '../../functions/handlers/create-pet.ts';
import { grantedEnvironment } from '../../infra/local/iam.ts';
import { routeOf } from '../../infra/routes.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { DynamoDBPetStore, petsTablesOf } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { IDEMPOTENCY_TABLE } from '../../shared/dynamodb/tables.ts';
import { requestFingerprint } from '../../shared/http/idempotency-key.ts';
import { IDEMPOTENCY_RECORD_TTL_SECONDS } from '../../shared/idempotency/record.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { TEST_KEY } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { idempotentCreates, REX, uniqueName } from '../support/idempotent-creates.ts';
import { clientLosingFirstAnswer } from '../support/lossy-client.ts';

const handler = createHandler(await grantedEnvironment(routeOf('createPet')));

const client = createDocumentClient();
const container = createContainer();
const records = requiredSetting(readSettings(), IDEMPOTENCY_TABLE.envVar);
const { createPet, petsNamed } = idempotentCreates(handler, container.pets);
afterAll(() => {
  client.destroy();
  container.client.destroy();
});

const body = (name: string, categoryId = 1) => JSON.stringify({ name, categoryId });

describe('createPet with Idempotency-Key', () => {
  it('writes pet and record in one transaction: the same request replays it, another body gets 422', async () => {
    const key = randomUUID();
    const name = uniqueName();

    const first = await createPet(body(name), { 'Idempotency-Key': key });
    const repeat = await createPet(body(name), { 'Idempotency-Key': key });
    const other = await createPet(body(name, 2), { 'Idempotency-Key': key });

    expect(first.statusCode).toBe(201);
    expect(repeat).toEqual({
      ...first,
      headers: { ...first.headers, 'Idempotent-Replayed': 'true' },
    });
    expect(other.statusCode).toBe(422);
    expect(JSON.parse(other.body).code).toBe('idempotency_key_reused');
    expect(await petsNamed(name)).toBe(1);
  });

  it('makes one pet of 10 concurrent identical requests; the others replay it or answer 409 with Retry-After', async () => {
    const key = randomUUID();
    const name = uniqueName();

    const answers = await Promise.all(
      Array.from({ length: 10 }, () => createPet(body(name), { 'Idempotency-Key': key })),
    );

    expect(await petsNamed(name)).toBe(1);
    const created = answers.filter((answer) => answer.statusCode === 201);
    expect(created.filter((answer) => !answer.headers?.['Idempotent-Replayed'])).toHaveLength(1);
    expect(new Set(created.map((answer) => answer.body)).size).toBe(1);
    for (const answer of answers.filter((a) => a.statusCode !== 201)) {
      expect(answer.statusCode).toBe(409);
      expect(JSON.parse(answer.body).code).toBe('idempotency_request_in_progress');
      expect(answer.headers?.['Retry-After']).toBe('1');
    }
  });

  it('creates one pet and answers 201 when the transaction landed but its answer was lost (the SDK retries it)', async () => {
    const lossy = await clientLosingFirstAnswer('TransactWriteItemsCommand', routeOf('createPet'));
    try {
      const pets = new DynamoDBPetStore(lossy, petsTablesOf(container));
      const lossyCreates = idempotentCreates(
        createPetHandler({
          settings: container.settings,
          rateLimiter: container.rateLimiter,
          pets,
        }),
        container.pets,
      );
      const key = randomUUID();
      const name = uniqueName();

      const answer = await lossyCreates.createPet(body(name), { 'Idempotency-Key': key });
      const repeat = await createPet(body(name), { 'Idempotency-Key': key });

      // The retry carried the transaction's ClientRequestToken: DynamoDB answered it as landed.
      expect(answer.statusCode).toBe(201);
      expect(answer.headers).not.toHaveProperty('Idempotent-Replayed');
      expect(await petsNamed(name)).toBe(1);
      expect(repeat.body).toBe(answer.body);
    } finally {
      lossy.destroy();
    }
  });

  it('creates anew over a record past its expiry that TTL has not yet deleted', async () => {
    const key = randomUUID();
    const name = uniqueName();
    await client.send(
      new PutCommand({
        TableName: records,
        Item: {
          id: `${TEST_KEY.keyId}#${key}`,
          fingerprint: requestFingerprint(JSON.parse(REX)),
          result: { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
          expiresAt: Math.floor(Date.now() / 1000) - 1,
        },
      }),
    );

    const answer = await createPet(body(name), { 'Idempotency-Key': key });

    expect(answer.statusCode).toBe(201);
    expect(answer.headers).not.toHaveProperty('Idempotent-Replayed');
    expect(await petsNamed(name)).toBe(1);
  });

  it('keeps each record 24 hours (TTL on expiresAt), with the pet it created and the fingerprint', async () => {
    const key = randomUUID();
    const before = Math.floor(Date.now() / 1000);
    const answer = await createPet(REX, { 'Idempotency-Key': key });

    const { Item } = await client.send(
      new GetCommand({ TableName: records, Key: { id: `${TEST_KEY.keyId}#${key}` } }),
    );

    expect(Item?.result).toEqual(JSON.parse(answer.body));
    expect(Item?.fingerprint).toBe(requestFingerprint(JSON.parse(REX)));
    expect(Item?.expiresAt - before).toBeGreaterThanOrEqual(IDEMPOTENCY_RECORD_TTL_SECONDS);
    expect(Item?.expiresAt - before).toBeLessThanOrEqual(IDEMPOTENCY_RECORD_TTL_SECONDS + 5);
  });

  it('replays a live record of 1.0.0 (the answer stored whole) from its body, creating nothing', async () => {
    const key = randomUUID();
    const pet = { id: 424242, name: uniqueName(), categoryId: 1, status: 'available' };
    await client.send(
      new PutCommand({
        TableName: records,
        Item: {
          id: `${TEST_KEY.keyId}#${key}`,
          fingerprint: requestFingerprint(JSON.parse(body(pet.name))),
          response: {
            statusCode: 201,
            headers: { Location: `/v1/pets/${pet.id}` },
            body: JSON.stringify(pet),
          },
          expiresAt: Math.floor(Date.now() / 1000) + 60,
        },
      }),
    );

    const replay = await createPet(body(pet.name), { 'Idempotency-Key': key });
    const other = await createPet(body(pet.name, 2), { 'Idempotency-Key': key });

    expect(replay).toMatchObject({
      statusCode: 201,
      headers: { Location: `/v1/pets/${pet.id}`, 'Idempotent-Replayed': 'true' },
      body: JSON.stringify(pet),
    });
    expect(other.statusCode).toBe(422);
    expect(await petsNamed(pet.name)).toBe(0);
  });

  // Last: it deletes this file's idempotency table.
  it('answers 503 with a key when the records are gone, creating nothing, and still creates without one', async () => {
    await client.send(new DeleteTableCommand({ TableName: records }));
    const name = uniqueName();

    const withKey = await createPet(body(name), { 'Idempotency-Key': randomUUID() });
    const created = await petsNamed(name);
    const withoutKey = await createPet(body(name), {});

    expect(withKey).toEqual({
      ...errorResponse(
        503,
        'service_unavailable',
        'The store did not confirm the create. Retry with the same Idempotency-Key: the retry answers with the pet if it was created, or creates it. Retry after 5 seconds.',
      ),
      headers: { 'Content-Type': 'application/json', 'Retry-After': '5' },
    });
    expect(created).toBe(0);
    expect(withoutKey.statusCode).toBe(201);
    expect(await petsNamed(name)).toBe(1);
  });
});
