/**
 * The pet-id sequence on the pets table, and its migration from the counters table: on a table
 * without the sequence item, the first create continues above every id already issued.
 */
import { randomBytes } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createTables } from '../../infra/local/tables.ts';
import { createDocumentClient } from '../../shared/clients.ts';
import { DynamoDBPetStore } from '../../shared/pets/dynamodb-pet-store.ts';
import {
  LEGACY_PET_ID_SEQUENCE,
  PET_ID_SEQUENCE_ID,
  SEQUENCE_MIGRATION_GAP,
} from '../../shared/pets/id-sequence.ts';
import { petItem } from '../../shared/pets/pet-item.ts';
import { COUNTERS_TABLE, PETS_TABLE } from '../../shared/tables.ts';

const client = createDocumentClient();
afterAll(() => client.destroy());

/** A store on tables of its own, as a deployment that has not created a pet since the upgrade. */
async function freshStore() {
  const suffix = randomBytes(4).toString('hex');
  const env = await createTables(client, (table) => `${table.localName}-seq-${suffix}`);
  const pets = env[PETS_TABLE.envVar] as string;
  const counters = env[COUNTERS_TABLE.envVar] as string;
  return {
    pets,
    counters,
    store: new DynamoDBPetStore(client, { pets, legacyCounters: counters }),
  };
}

const REX = { name: 'Rex', categoryId: 1, status: 'available' } as const;

async function sequenceValue(pets: string): Promise<unknown> {
  const { Item } = await client.send(
    new GetCommand({ TableName: pets, Key: { id: PET_ID_SEQUENCE_ID }, ConsistentRead: true }),
  );
  return Item?.value;
}

describe('pet-id sequence', () => {
  it('starts at 1 on a new table and keeps the last id issued in the sequence item', async () => {
    const { pets, store } = await freshStore();

    expect((await store.createPet(REX)).id).toBe(1);
    expect((await store.createPet(REX)).id).toBe(2);
    expect(await sequenceValue(pets)).toBe(2);
  });

  it('continues above the old counter, with the migration gap, on the first create after the upgrade', async () => {
    const { pets, counters, store } = await freshStore();
    await client.send(
      new PutCommand({ TableName: counters, Item: { name: LEGACY_PET_ID_SEQUENCE, value: 41 } }),
    );
    await client.send(
      new PutCommand({ TableName: pets, Item: petItem({ ...REX, id: 41 }, Date.now()) }),
    );

    const pet = await store.createPet(REX);

    expect(pet.id).toBe(41 + SEQUENCE_MIGRATION_GAP + 1);
    expect(await store.getPet(41)).toEqual({ ...REX, id: 41 });
  });

  it('gives distinct consecutive ids to concurrent first creates', async () => {
    const { counters, store } = await freshStore();
    await client.send(
      new PutCommand({ TableName: counters, Item: { name: LEGACY_PET_ID_SEQUENCE, value: 7 } }),
    );

    const created = await Promise.all(Array.from({ length: 10 }, () => store.createPet(REX)));

    const ids = created.map((pet) => pet.id).sort((a, b) => a - b);
    const first = 7 + SEQUENCE_MIGRATION_GAP + 1;
    expect(ids).toEqual(Array.from({ length: 10 }, (_, i) => first + i));
  });

  it('continues above the highest pet id when there is no old counter', async () => {
    const { pets, store } = await freshStore();
    for (const [id, status] of [
      [17, 'sold'],
      [9, 'pending'],
      [3, 'available'],
    ] as const) {
      await client.send(
        new PutCommand({ TableName: pets, Item: petItem({ ...REX, id, status }, Date.now()) }),
      );
    }

    expect((await store.createPet(REX)).id).toBe(18);
  });

  it('needs no counters table: it is read only while seeding, and a missing one holds no ids', async () => {
    const { pets, counters, store } = await freshStore();
    await client.send(
      new PutCommand({ TableName: pets, Item: petItem({ ...REX, id: 5 }, Date.now()) }),
    );
    await client.send(new DeleteTableCommand({ TableName: counters }));

    expect((await store.createPet(REX)).id).toBe(6);
    expect((await store.createPet(REX)).id).toBe(7);
  });

  it('never shows the sequence item as a pet', async () => {
    const { store } = await freshStore();
    await store.createPet(REX);

    const only = { pets: [{ ...REX, id: 1 }], hasMore: false };
    expect(await store.listPets({ limit: 100 })).toEqual(only);
    expect(await store.listPets({ limit: 100, status: 'available' })).toEqual(only);
  });
});
