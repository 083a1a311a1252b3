import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentClient, requireEnv } from '../../shared/clients.ts';
import { DynamoDbPetStore, PET_ID_SEQUENCE_ID, petStoreFromEnv } from '../../shared/pets/store.ts';
import { COUNTERS_TABLE, PETS_TABLE } from '../../shared/tables.ts';
import { clientLosingFirstAnswer } from '../support/lossy-client.ts';

const client = createDocumentClient();
const tables = {
  pets: requireEnv(PETS_TABLE.envVar),
  legacyCounters: requireEnv(COUNTERS_TABLE.envVar),
};
const store = new DynamoDbPetStore(client, tables);

afterAll(() => client.destroy());

async function storedItem(id: number) {
  const { Item } = await client.send(new GetCommand({ TableName: tables.pets, Key: { id } }));
  return Item;
}

describe('DynamoDbPetStore', () => {
  it('creates a pet with a positive integer id and returns only the Pet fields', async () => {
    const pet = await store.createPet({ name: 'Rex', categoryId: 4, status: 'pending' });

    expect(pet).toEqual({ id: pet.id, name: 'Rex', categoryId: 4, status: 'pending' });
    expect(Number.isSafeInteger(pet.id) && pet.id > 0).toBe(true);
  });

  it('stores createdAt with the pet but keeps it out of the Pet it reads', async () => {
    const pet = await store.createPet({ name: 'Tom', categoryId: 1, status: 'available' });

    const item = await storedItem(pet.id);
    expect(item).toEqual({ ...pet, createdAt: expect.any(String) });
    expect(new Date(item?.createdAt).toISOString()).toBe(item?.createdAt);
    expect(await store.getPet(pet.id)).toEqual(pet);
  });

  it('answers undefined for an id no pet has', async () => {
    expect(await store.getPet(987_654_321)).toBeUndefined();
  });

  it('issues consecutive ids and never reuses the id of a deleted pet', async () => {
    const first = await store.createPet({ name: 'A', categoryId: 1, status: 'available' });
    const second = await store.createPet({ name: 'B', categoryId: 1, status: 'available' });
    expect(second.id).toBe(first.id + 1);

    await client.send(new DeleteCommand({ TableName: tables.pets, Key: { id: second.id } }));
    const third = await store.createPet({ name: 'C', categoryId: 1, status: 'available' });

    expect(third.id).toBe(second.id + 1);
  });

  it('refuses to overwrite an existing pet when the id sequence is behind', async () => {
    const pet = await store.createPet({ name: 'Keep me', categoryId: 2, status: 'sold' });
    const counter = { TableName: tables.pets, Key: { id: PET_ID_SEQUENCE_ID } };
    const { Item: sequence } = await client.send(new GetCommand(counter));
    try {
      await client.send(
        new PutCommand({
          TableName: tables.pets,
          Item: { id: PET_ID_SEQUENCE_ID, value: pet.id - 1 },
        }),
      );

      await expect(
        store.createPet({ name: 'Intruder', categoryId: 1, status: 'available' }),
      ).rejects.toBeInstanceOf(ConditionalCheckFailedException);
      expect(await store.getPet(pet.id)).toEqual(pet);
    } finally {
      await client.send(new PutCommand({ TableName: tables.pets, Item: sequence }));
    }
  });

  it('lists pets of one status in ascending id, at most limit', async () => {
    // This file creates no other pets of category 99, but may create other pending ones.
    const created = [];
    for (const status of ['pending', 'sold', 'pending', 'pending', 'sold'] as const) {
      created.push(await store.createPet({ name: `S ${status}`, categoryId: 99, status }));
    }

    const pending = await store.listPets({ limit: 100, status: 'pending' });
    const ours = pending.filter((pet) => pet.categoryId === 99);
    expect(ours).toEqual(created.filter((pet) => pet.status === 'pending'));
    expect(pending.map((pet) => pet.id)).toEqual(
      [...pending.map((pet) => pet.id)].sort((a, b) => a - b),
    );
    expect(pending.every((pet) => pet.status === 'pending')).toBe(true);

    expect(await store.listPets({ limit: 2, status: 'pending' })).toEqual(pending.slice(0, 2));
  });

  it('lists at most limit pets without status, each a Pet without createdAt', async () => {
    const all = await store.listPets({ limit: 100 });
    expect(all.length).toBeGreaterThan(3);
    for (const pet of all) expect(Object.keys(pet)).toEqual(['id', 'name', 'categoryId', 'status']);

    // The pet-id sequence shares the table but is not a pet.
    expect(all.map((pet) => pet.id)).not.toContain(PET_ID_SEQUENCE_ID);
    const some = await store.listPets({ limit: 3 });
    expect(some).toHaveLength(3);
    for (const pet of some) expect(all).toContainEqual(pet);
  });

  it('is what petStoreFromEnv builds from the table env vars', async () => {
    const pet = await store.createPet({ name: 'Env', categoryId: 5, status: 'sold' });
    expect(await petStoreFromEnv().getPet(pet.id)).toEqual(pet);
  });
});

describe('writes whose answer was lost and retried by the SDK', () => {
  it('creates the pet once and succeeds when the retried put finds its own item', async () => {
    const lossy = clientLosingFirstAnswer('PutItemCommand');
    try {
      const pet = await new DynamoDbPetStore(lossy, tables).createPet({
        name: `Lost answer ${Date.now()}`,
        categoryId: 8,
        status: 'sold',
      });

      expect(await store.getPet(pet.id)).toEqual(pet);
    } finally {
      lossy.destroy();
    }
  });
});
