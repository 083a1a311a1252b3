/**
 * listPets on the sharded `status-index`, on DynamoDB Local and a clock of the test's own: pages
 * merged from the 32 shards of each status (ascending, each pet once, `hasMore`), and the page
 * cache (a settled page served without a DynamoDB call for 10 minutes, a tail page for one
 * second, one read shared by concurrent requests, its bound of pets).
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { countStatusIndexReads } from '../../bench/status-index-reads.ts';
import { createTables } from '../../infra/local/create-tables.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBPetStore } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { STATUS_SHARDS, statusShardOf } from '../../shared/dynamodb/pet-item.ts';
import { PETS_TABLE } from '../../shared/dynamodb/tables.ts';
import {
  PageCache,
  SETTLED_AFTER_MS,
  SETTLED_PAGE_TTL_MS,
  TAIL_PAGE_TTL_MS,
} from '../../shared/pets/page-cache.ts';
import type { ListPetsOptions, PetPage } from '../../shared/pets/pet-store.ts';
import type { Pet, PetStatus } from '../../shared/pets/schemas.ts';
import { petTables } from '../support/pet-tables.ts';

const client = createDocumentClient();
/** The Queries on `status-index` of every store here (only the readers list). */
const reads = countStatusIndexReads(client);
/** The test's clock, epoch ms: stores read it, tests move it. */
let clock = Date.UTC(2030, 0, 1);
const now = () => clock;

/** A pets table of its own, a store that creates on it and one that reads through a cache. */
async function freshStores(cache = new PageCache()) {
  const suffix = randomBytes(4).toString('hex');
  const env = await createTables(client, (table) => `${table.localName}-shards-${suffix}`);
  const tables = petTables(env[PETS_TABLE.envVar] ?? '');
  return {
    creator: new DynamoDBPetStore(client, tables, { now }),
    reader: new DynamoDBPetStore(client, tables, { now, pageCache: cache }),
    cache,
  };
}

/** Creates `count` pets of `status`, 10 at a time; answers them in ascending id. */
async function createPets(store: DynamoDBPetStore, count: number, status: PetStatus) {
  const created: Pet[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = Array.from({ length: Math.min(10, count - start) }, (_, i) =>
      store.createPet({ name: `Sharded ${start + i}`, categoryId: 1, status }),
    );
    created.push(...(await Promise.all(batch)));
  }
  return created.sort((a, b) => a.id - b.id);
}

/** The page of `options` from `store`, and how many Queries it cost. */
async function read(store: DynamoDBPetStore, options: ListPetsOptions) {
  const before = reads.calls;
  const page: PetPage = await store.listPets(options);
  return { page, calls: reads.calls - before };
}

describe('pages merged from the shards', () => {
  let stores: Awaited<ReturnType<typeof freshStores>>;
  let sold: Pet[];
  let pending: Pet[];

  beforeAll(async () => {
    stores = await freshStores();
    sold = await createPets(stores.creator, 40, 'sold');
    pending = await createPets(stores.creator, 5, 'pending');
  });

  it('spreads one status over many shards', () => {
    const shards = new Set(sold.map((pet) => statusShardOf('sold', pet.id)));

    expect(shards.size).toBeGreaterThan(8);
  });

  it('lists every pet of a status once, in ascending id, hasMore false only on the last page', async () => {
    const pages: PetPage[] = [];
    let afterId: number | undefined;
    for (let count = 0; count < 20; count++) {
      const { page, calls } = await read(stores.creator, { limit: 7, status: 'sold', afterId });
      expect(calls).toBe(STATUS_SHARDS);
      pages.push(page);
      if (!page.hasMore) break;
      afterId = page.pets.at(-1)?.id;
    }

    expect(pages.map((page) => [page.pets.length, page.hasMore])).toEqual([
      ...Array.from({ length: 5 }, () => [7, true]),
      [5, false],
    ]);
    expect(pages.flatMap((page) => page.pets)).toEqual(sold);
  });

  it('lists without status the smallest ids of all statuses from 96 Queries', async () => {
    const all = [...sold, ...pending].sort((a, b) => a.id - b.id);

    const { page, calls } = await read(stores.creator, { limit: 30, afterId: all[9]?.id });

    expect(calls).toBe(3 * STATUS_SHARDS);
    expect(page).toEqual({ pets: all.slice(10, 40), hasMore: true });
  });
});

describe('the page cache', () => {
  it('serves a settled page without a DynamoDB call for 10 minutes, then reads it again', async () => {
    const { creator, reader } = await freshStores();
    const pets = await createPets(creator, 12, 'available');
    clock += SETTLED_AFTER_MS + 1;
    const first = await read(reader, { limit: 10, status: 'available' });

    clock += SETTLED_PAGE_TTL_MS - 1;
    const cached = await read(reader, { limit: 10, status: 'available' });
    clock += 1;
    const again = await read(reader, { limit: 10, status: 'available' });

    expect(first).toEqual({
      page: { pets: pets.slice(0, 10), hasMore: true },
      calls: STATUS_SHARDS,
    });
    expect(cached).toEqual({ ...first, calls: 0 });
    expect(again).toEqual({ ...first, calls: STATUS_SHARDS });
  });

  it('keeps a full page whose pets are recent one second only', async () => {
    const { creator, reader } = await freshStores();
    await createPets(creator, 12, 'available');
    clock += SETTLED_AFTER_MS;

    const calls = [];
    for (const step of [0, TAIL_PAGE_TTL_MS - 1, 1]) {
      clock += step;
      calls.push((await read(reader, { limit: 10, status: 'available' })).calls);
    }

    expect(calls).toEqual([STATUS_SHARDS, 0, STATUS_SHARDS]);
  });

  it('keeps the tail page one second: a pet created meanwhile shows once it expired', async () => {
    const { creator, reader } = await freshStores();
    const pets = await createPets(creator, 3, 'pending');
    clock += SETTLED_PAGE_TTL_MS;
    const first = await read(reader, { limit: 10, status: 'pending' });

    clock += TAIL_PAGE_TTL_MS - 1;
    const [newPet] = await createPets(creator, 1, 'pending');
    const cached = await read(reader, { limit: 10, status: 'pending' });
    clock += 1;
    const expired = await read(reader, { limit: 10, status: 'pending' });

    expect(first).toEqual({ page: { pets, hasMore: false }, calls: STATUS_SHARDS });
    expect(cached).toEqual({ ...first, calls: 0 });
    expect(expired).toEqual({
      page: { pets: [...pets, newPet], hasMore: false },
      calls: STATUS_SHARDS,
    });
  });

  it('answers a page without status from the three statuses cached pages', async () => {
    const { creator, reader } = await freshStores();
    const pets = [
      ...(await createPets(creator, 4, 'sold')),
      ...(await createPets(creator, 4, 'available')),
    ].sort((a, b) => a.id - b.id);

    const first = await read(reader, { limit: 5 });
    const cached = await read(reader, { limit: 5 });

    expect(first).toEqual({
      page: { pets: pets.slice(0, 5), hasMore: true },
      calls: 3 * STATUS_SHARDS,
    });
    expect(cached).toEqual({ ...first, calls: 0 });
  });

  it('shares one read among concurrent requests of the same page', async () => {
    const { creator, reader } = await freshStores();
    const pets = await createPets(creator, 3, 'sold');
    const before = reads.calls;

    const pages = await Promise.all(
      Array.from({ length: 5 }, () => reader.listPets({ limit: 10, status: 'sold' })),
    );

    expect(reads.calls - before).toBe(STATUS_SHARDS);
    for (const page of pages) expect(page).toEqual({ pets, hasMore: false });
  });

  it('holds at most its bound of pets, and answers the evicted pages from DynamoDB again', async () => {
    const { creator, reader, cache } = await freshStores(new PageCache(20));
    const pets = await createPets(creator, 30, 'sold');
    clock += SETTLED_AFTER_MS + 1;

    const pages = [];
    for (const pet of pets.slice(0, 8)) {
      pages.push(await read(reader, { limit: 4, status: 'sold', afterId: pet.id }));
      expect(cache.size).toBeLessThanOrEqual(20);
    }
    const again = await read(reader, { limit: 4, status: 'sold', afterId: pets[0]?.id });
    const newest = await read(reader, { limit: 4, status: 'sold', afterId: pets[7]?.id });

    expect(cache.size).toBe(3 * (5 + 1));
    expect(again).toEqual({ ...pages[0], calls: STATUS_SHARDS });
    expect(newest).toEqual({ ...pages[7], calls: 0 });
  });
});
