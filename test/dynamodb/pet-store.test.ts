import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countStatusIndexReads } from '../../bench/status-index-reads.ts';
import { createTables } from '../../infra/local/create-tables.ts';
import { routeOf } from '../../infra/routes.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { DynamoDBPetStore } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { PET_ID_SEQUENCE_ID } from '../../shared/dynamodb/id-blocks.ts';
import { STATUS_SHARDS, statusShardOf } from '../../shared/dynamodb/pet-item.ts';
import { PETS_TABLE } from '../../shared/dynamodb/tables.ts';
import type { ListPetsOptions, PetPage } from '../../shared/pets/pet-store.ts';
import type { Pet, PetStatus } from '../../shared/pets/schemas.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { clientLosingFirstAnswer } from '../support/lossy-client.ts';
import { petTables } from '../support/pet-tables.ts';

const client = createDocumentClient();
/** The Queries on `status-index` of every store here. */
const reads = countStatusIndexReads(client);
const tables = petTables(requiredSetting(readSettings(), PETS_TABLE.envVar));
const store = new DynamoDBPetStore(client, tables);

afterAll(() => client.destroy());

async function storedItem(id: number) {
  const { Item } = await client.send(new GetCommand({ TableName: tables.pets, Key: { id } }));
  return Item;
}

describe('DynamoDBPetStore', () => {
  it('creates a pet with a positive integer id and returns only the Pet fields', async () => {
    const pet = await store.createPet({ name: 'Rex', categoryId: 4, status: 'pending' });

    expect(pet).toEqual({ id: pet.id, name: 'Rex', categoryId: 4, status: 'pending' });
    expect(Number.isSafeInteger(pet.id) && pet.id > 0).toBe(true);
  });

  it('stores the status-index shard and createdAt with the pet but keeps them out of the Pet it reads', async () => {
    const pet = await store.createPet({ name: 'Tom', categoryId: 1, status: 'available' });

    const item = await storedItem(pet.id);
    expect(item).toEqual({
      ...pet,
      statusShard: statusShardOf(pet.status, pet.id),
      createdAt: expect.any(String),
    });
    expect(new Date(item?.createdAt).toISOString()).toBe(item?.createdAt);
    expect(await store.getPet(pet.id)).toEqual(pet);
  });

  it('answers undefined for an id no pet has', async () => {
    expect(await store.getPet(987_654_321)).toBeUndefined();
  });

  it('issues ascending ids and never reuses the id of a deleted pet', async () => {
    const first = await store.createPet({ name: 'A', categoryId: 1, status: 'available' });
    const second = await store.createPet({ name: 'B', categoryId: 1, status: 'available' });
    expect(second.id).toBeGreaterThan(first.id);

    await client.send(new DeleteCommand({ TableName: tables.pets, Key: { id: second.id } }));
    const third = await store.createPet({ name: 'C', categoryId: 1, status: 'available' });

    expect(third.id).toBeGreaterThan(second.id);
  });

  it('refuses to overwrite an existing pet when the id sequence is behind', async () => {
    const pet = await store.createPet({ name: 'Keep me', categoryId: 2, status: 'sold' });
    // Another instance, which leases its block from the sequence set back.
    const behind = new DynamoDBPetStore(client, tables);
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
        behind.createPet({ name: 'Intruder', categoryId: 1, status: 'available' }),
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

    const { pets: pending } = await store.listPets({ limit: 100, status: 'pending' });
    const ours = pending.filter((pet) => pet.categoryId === 99);
    expect(ours).toEqual(created.filter((pet) => pet.status === 'pending'));
    expect(pending.map((pet) => pet.id)).toEqual(
      [...pending.map((pet) => pet.id)].sort((a, b) => a - b),
    );
    expect(pending.every((pet) => pet.status === 'pending')).toBe(true);

    const { pets: firstTwo } = await store.listPets({ limit: 2, status: 'pending' });
    expect(firstTwo).toEqual(pending.slice(0, 2));
  });

  it('lists at most limit pets without status, the lowest ids of all statuses, each a Pet without createdAt', async () => {
    await store.createPet({ name: 'One of each', categoryId: 1, status: 'sold' });
    const { pets: all } = await store.listPets({ limit: 100 });
    expect(all.length).toBeGreaterThan(3);
    expect(new Set(all.map((pet) => pet.status)).size).toBe(3);
    for (const pet of all) expect(Object.keys(pet)).toEqual(['id', 'name', 'categoryId', 'status']);
    expect(all.map((pet) => pet.id)).toEqual([...all.map((pet) => pet.id)].sort((a, b) => a - b));

    // The pet-id sequence shares the table but is not a pet.
    expect(all.map((pet) => pet.id)).not.toContain(PET_ID_SEQUENCE_ID);
    const { pets: some } = await store.listPets({ limit: 3 });
    expect(some).toEqual(all.slice(0, 3));
  });

  it('is what createContainer builds from the table env vars', async () => {
    const pet = await store.createPet({ name: 'Env', categoryId: 5, status: 'sold' });
    expect(await createContainer().pets.getPet(pet.id)).toEqual(pet);
  });
});

describe('DynamoDBPetStore pages (tables of their own)', () => {
  /** Statuses of the pets created in `beforeAll`, uneven on purpose: 15 available, 10 pending, 5 sold. */
  const STATUS_CYCLE = [
    'available',
    'pending',
    'available',
    'sold',
    'available',
    'pending',
  ] as const;
  let paged: DynamoDBPetStore;
  let pets: Pet[];
  let petsTable: string;

  /** Creates `count` pets with the statuses of STATUS_CYCLE, in parallel batches. */
  async function createPets(count: number): Promise<Pet[]> {
    const created: Pet[] = [];
    for (let start = 0; start < count; start += 25) {
      const batch = Array.from({ length: Math.min(25, count - start) }, (_, i) => {
        const status = STATUS_CYCLE[(start + i) % STATUS_CYCLE.length] ?? 'available';
        return paged.createPet({ name: `Paged ${start + i}`, categoryId: 1, status });
      });
      created.push(...(await Promise.all(batch)));
    }
    return created.sort((a, b) => a.id - b.id);
  }

  /** Every page of a listing, following `afterId` as the handler does. */
  async function allPages(options: { limit: number; status?: PetStatus }): Promise<PetPage[]> {
    const pages: PetPage[] = [];
    let afterId: number | undefined;
    for (let page = 0; page < 100; page++) {
      const next = await paged.listPets({ ...options, afterId });
      pages.push(next);
      if (!next.hasMore) return pages;
      afterId = next.pets.at(-1)?.id;
    }
    throw new Error('more than 100 pages');
  }

  beforeAll(async () => {
    const suffix = randomBytes(4).toString('hex');
    const env = await createTables(client, (table) => `${table.localName}-paged-${suffix}`);
    petsTable = env[PETS_TABLE.envVar] ?? '';
    paged = new DynamoDBPetStore(client, petTables(petsTable));
    pets = await createPets(30);
  });

  it('pages through every pet once, in ascending id; only the last page says no more, even when full', async () => {
    const pages = await allPages({ limit: 10 });

    expect(pages.map((page) => [page.pets.length, page.hasMore])).toEqual([
      [10, true],
      [10, true],
      [10, false],
    ]);
    expect(pages.flatMap((page) => page.pets)).toEqual(pets);
  });

  it.each([
    ['available', 15],
    ['pending', 10],
    ['sold', 5],
  ] as const)(
    'pages through the %s pets only, %i of them, in ascending id',
    async (status, count) => {
      const pages = await allPages({ limit: 4, status });

      const listed = pages.flatMap((page) => page.pets);
      expect(listed).toEqual(pets.filter((pet) => pet.status === status));
      expect(listed).toHaveLength(count);
      expect(pages).toHaveLength(Math.ceil(count / 4));
    },
  );

  it('answers an empty last page after the highest id', async () => {
    const last = pets.at(-1)?.id;

    expect(await paged.listPets({ limit: 5, afterId: last })).toEqual({ pets: [], hasMore: false });
    expect(await paged.listPets({ limit: 5, status: 'sold', afterId: last })).toEqual({
      pets: [],
      hasMore: false,
    });
  });

  it('never lists the pet-id sequence item that shares the table', async () => {
    const { Item: sequence } = await client.send(
      new GetCommand({ TableName: petsTable, Key: { id: PET_ID_SEQUENCE_ID } }),
    );
    expect(sequence).toEqual({ id: PET_ID_SEQUENCE_ID, value: expect.any(Number) });
    expect(sequence?.value).toBeGreaterThanOrEqual(pets.at(-1)?.id ?? 0);

    const listed = (await allPages({ limit: 100 })).flatMap((page) => page.pets);

    expect(listed).toEqual(pets);
  });

  it('reads one Query per shard of each status listed, each at most limit + 1 items, whatever the table holds', async () => {
    const cost = async (options: ListPetsOptions) => {
      const before = { ...reads };
      await paged.listPets(options);
      return {
        calls: reads.calls - before.calls,
        itemsRead: reads.itemsRead - before.itemsRead,
      };
    };
    const pageAfter = pets[0]?.id;
    const pages: ListPetsOptions[] = [
      { limit: 3 },
      { limit: 3, status: 'sold' },
      { limit: 3, afterId: pageAfter },
    ];
    const small = [];
    for (const page of pages) small.push(await cost(page));

    await createPets(300);
    const large = [];
    for (const page of pages) large.push(await cost(page));

    const calls = [3 * STATUS_SHARDS, STATUS_SHARDS, 3 * STATUS_SHARDS];
    for (const figures of [small, large]) {
      expect(figures.map((each) => each.calls)).toEqual(calls);
      for (const [page, each] of figures.entries()) {
        expect(each.itemsRead).toBeLessThanOrEqual(4 * (calls[page] ?? 0));
      }
    }
    // 330 pets: more than a page without status reads (at most 4 items from each of 48 shards).
    expect(large[0]?.itemsRead).toBeLessThan(330);
    expect(reads.readUnits).toBeGreaterThan(0);
  });
});

describe('writes whose answer was lost and retried by the SDK', () => {
  it("creates the pet once and succeeds when the retried put finds its own item (with createPet's grants)", async () => {
    const lossy = await clientLosingFirstAnswer('PutItemCommand', routeOf('createPet'));
    try {
      const pet = await new DynamoDBPetStore(lossy, tables).createPet({
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
