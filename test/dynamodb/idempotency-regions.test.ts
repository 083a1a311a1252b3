/**
 * createPet with Idempotency-Key in a stage of two regions, on DynamoDB Local (one table holds
 * both regions' records, as each replica does once replication settles): each region writes its
 * own record of a key (the home region's under the key's id as before regions, the other's under
 * `<id>@<region>`) and checks the other's in the same transaction, so that a repeat in the other
 * region replays the first answer and creates nothing. A repeat within the replication lag is the
 * two-region stack's business (test/integration/regions.test.ts).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createPetHandler } from '../../functions/handlers/create-pet.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { DynamoDBPetStore, petsTablesOf } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { IDEMPOTENCY_TABLE } from '../../shared/dynamodb/tables.ts';
import type { Regions } from '../../shared/regions.ts';
import { requiredSetting } from '../../shared/settings.ts';
import { TEST_KEY } from '../support/authorized-event.ts';
import { idempotentCreates, uniqueName } from '../support/idempotent-creates.ts';

const base = createContainer();
const client = createDocumentClient();
const records = requiredSetting(base.settings, IDEMPOTENCY_TABLE.envVar);
/** The createPet of the region in place `own` (one DynamoDB Local database stands for both). */
const regionOf = (own: number) => {
  const regions: Regions = { names: ['us-east-1', 'eu-west-1'], own };
  const pets = new DynamoDBPetStore(base.client, petsTablesOf(base), { regions });
  const handler = createPetHandler({
    settings: base.settings,
    rateLimiter: base.rateLimiter,
    pets,
  });
  return idempotentCreates(handler, pets);
};
const home = regionOf(0);
const other = regionOf(1);
afterAll(() => {
  client.destroy();
  base.client.destroy();
});

const body = (name: string, categoryId = 1) => JSON.stringify({ name, categoryId });

async function recordOf(id: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: records, Key: { id }, ConsistentRead: true }),
  );
  return Item;
}

describe('createPet with Idempotency-Key in two regions', () => {
  it.each([
    ['the home region, repeated in the other', home, other, ''],
    ['the other region, repeated in the home region', other, home, '@eu-west-1'],
  ])('replays a create of %s and creates nothing there', async (_, first, then, suffix) => {
    const key = randomUUID();
    const name = uniqueName();

    const created = await first.createPet(body(name), { 'Idempotency-Key': key });
    const repeat = await then.createPet(body(name), { 'Idempotency-Key': key });
    const reused = await then.createPet(body(name, 2), { 'Idempotency-Key': key });

    expect(created.statusCode).toBe(201);
    expect(repeat).toEqual({
      ...created,
      headers: { ...created.headers, 'Idempotent-Replayed': 'true' },
    });
    expect(reused.statusCode).toBe(422);
    expect(await first.petsNamed(name)).toBe(1);
    expect(await recordOf(`${TEST_KEY.keyId}#${key}${suffix}`)).toMatchObject({
      result: JSON.parse(created.body),
    });
    const otherSuffix = suffix === '' ? '@eu-west-1' : '';
    expect(await recordOf(`${TEST_KEY.keyId}#${key}${otherSuffix}`)).toBeUndefined();
  });

  it('keeps the keys of the two regions apart: the same key of another API key creates', async () => {
    const name = uniqueName();
    const key = randomUUID();
    const otherKey = { ...TEST_KEY, keyId: `key_${randomUUID().slice(0, 16)}` as const };

    const first = await home.createPet(body(name), { 'Idempotency-Key': key });
    const second = await other.createPet(body(name), { 'Idempotency-Key': key }, otherKey);

    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(await home.petsNamed(name)).toBe(2);
  });
});
