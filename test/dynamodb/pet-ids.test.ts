/**
 * Pet ids in leased blocks on DynamoDB Local: unique across instances (stores of their own, as
 * function instances are), ascending within a block, dropped after their lifetime on the store's
 * clock, sized to the instance's rate (1 id first, doubled when spent while fresh, cut to the ids
 * used when expired), and leased beside the rate limiter's call (`prepareCreate`) so that a create
 * is one call.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createTables } from '../../infra/local/create-tables.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBPetStore } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { PET_ID_SEQUENCE_ID } from '../../shared/dynamodb/id-blocks.ts';
import { PETS_TABLE } from '../../shared/dynamodb/tables.ts';
import { ID_BLOCK_LIFETIME_MS } from '../../shared/pets/id-order.ts';
import { petTables } from '../support/pet-tables.ts';

const client = createDocumentClient();
/** Every call the counted client sends, by command name (e.g. `UpdateItemCommand`). */
const calls: string[] = [];
/** The size of every lease the counted client sends (`:size` of the sequence's `ADD`). */
const leases: number[] = [];
const counted = createDocumentClient();
counted.middlewareStack.add(
  (next, context) => (args) => {
    calls.push(context.commandName ?? '');
    const size = (args.input as { ExpressionAttributeValues?: Record<string, unknown> })
      .ExpressionAttributeValues?.[':size'];
    if (typeof size === 'number') leases.push(size);
    return next(args);
  },
  { step: 'initialize', name: 'countCalls' },
);
afterAll(() => {
  client.destroy();
  counted.destroy();
});

/** A pets table of its own, new: no sequence item yet. */
async function freshTable(): Promise<string> {
  const suffix = randomBytes(4).toString('hex');
  const env = await createTables(client, (table) => `${table.localName}-ids-${suffix}`);
  return env[PETS_TABLE.envVar] as string;
}

const REX = { name: 'Rex', categoryId: 1, status: 'available' } as const;

async function sequenceValue(pets: string): Promise<unknown> {
  const { Item } = await client.send(
    new GetCommand({ TableName: pets, Key: { id: PET_ID_SEQUENCE_ID }, ConsistentRead: true }),
  );
  return Item?.value;
}

/** The ids of `count` creates made one after another, with `between` run between two. */
async function sequentialIds(store: DynamoDBPetStore, count: number, between = () => {}) {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) between();
    ids.push((await store.createPet(REX)).id);
  }
  return ids;
}

describe('pet ids in leased blocks', () => {
  it('gives 1, 2, 3, … to the sequential creates of one instance on a new table, slow or fast', async () => {
    const slowTable = await freshTable();
    const fastTable = await freshTable();
    let nowMs = 1_000_000;
    const slow = new DynamoDBPetStore(counted, petTables(slowTable), { now: () => nowMs });
    const fast = new DynamoDBPetStore(counted, petTables(fastTable), { now: () => nowMs });

    leases.length = 0;
    const slowIds = await sequentialIds(slow, 5, () => {
      nowMs += 2 * ID_BLOCK_LIFETIME_MS;
    });
    const slowLeases = [...leases];
    leases.length = 0;
    const fastIds = await sequentialIds(fast, 7);
    const fastLeases = [...leases];

    expect(slowIds).toEqual([1, 2, 3, 4, 5]);
    expect(slowLeases).toEqual([1, 1, 1, 1, 1]);
    expect(await sequenceValue(slowTable)).toBe(5);
    expect(fastIds).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(fastLeases).toEqual([1, 2, 4]);
    expect(await sequenceValue(fastTable)).toBe(7);
  });

  it('doubles the next lease, up to the maximum, when a block is spent within its lifetime', async () => {
    const pets = await freshTable();
    const store = new DynamoDBPetStore(counted, petTables(pets), {
      maxIdBlockSize: 8,
      now: () => 1e6,
    });

    leases.length = 0;
    const ids = await sequentialIds(store, 20);

    expect(ids).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(leases).toEqual([1, 2, 4, 8, 8]);
    expect(await sequenceValue(pets)).toBe(23);
  });

  it('leases only as many ids as an expired block gave out, at least 1, never reusing the rest', async () => {
    const pets = await freshTable();
    let nowMs = 1_000_000;
    const store = new DynamoDBPetStore(counted, petTables(pets), { now: () => nowMs });

    leases.length = 0;
    // Leases of 1, 2 and 4, spent; then one of 8 (ids 8 to 15), of which 4 go out in its lifetime.
    const busy = await sequentialIds(store, 10);
    nowMs += ID_BLOCK_LIFETIME_MS - 1;
    const stillFresh = await sequentialIds(store, 1);
    nowMs += 1;
    // A lease of 4 (ids 16 to 19), of which 1 goes out; then leases of 1.
    const afterLifetime = await sequentialIds(store, 3, () => {
      nowMs += ID_BLOCK_LIFETIME_MS;
    });

    expect(busy).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(stillFresh).toEqual([11]);
    expect(afterLifetime).toEqual([16, 20, 21]);
    expect(leases).toEqual([1, 2, 4, 8, 4, 1, 1]);
    expect(await sequenceValue(pets)).toBe(21);
  });

  it('shares one lease among the concurrent creates of one instance, doubling as they spend it', async () => {
    const pets = await freshTable();
    const store = new DynamoDBPetStore(counted, petTables(pets), { now: () => 1e6 });

    leases.length = 0;
    const created = await Promise.all(Array.from({ length: 10 }, () => store.createPet(REX)));

    expect(created.map((pet) => pet.id).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    expect(leases).toEqual([1, 2, 4, 8]);
    expect(await sequenceValue(pets)).toBe(15);
  });

  it('gives unique ids to concurrent creates on several instances, ascending on each', async () => {
    const pets = await freshTable();
    const instances = Array.from(
      { length: 4 },
      () => new DynamoDBPetStore(client, petTables(pets), { maxIdBlockSize: 5 }),
    );

    // Each instance serves one request at a time, as a function instance does; all run at once.
    const issued = await Promise.all(
      instances.map(async (store, instance) => {
        const ids: number[] = [];
        for (let i = 0; i < 20; i++) {
          ids.push((await store.createPet({ ...REX, name: `Pet ${instance}.${i}` })).id);
        }
        return ids;
      }),
    );

    const all = issued.flat();
    expect(new Set(all).size).toBe(80);
    expect(all.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    for (const ids of issued) expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(Number(await sequenceValue(pets))).toBeGreaterThanOrEqual(Math.max(...all));
    const { pets: listed } = await new DynamoDBPetStore(client, petTables(pets)).listPets({
      limit: 100,
    });
    expect(listed.map((pet) => pet.id)).toEqual([...all].sort((a, b) => a - b));
  });

  it('makes the next create a single call once prepareCreate has leased a block', async () => {
    const pets = await freshTable();
    let nowMs = 1_000_000;
    const store = new DynamoDBPetStore(counted, petTables(pets), { now: () => nowMs });
    const callsOf = async (work: () => Promise<unknown>) => {
      calls.length = 0;
      await work();
      return [...calls];
    };

    const prepared = await callsOf(() =>
      Promise.all([store.prepareCreate(), store.prepareCreate(), store.prepareCreate()]),
    );
    const create = await callsOf(() => store.createPet(REX));
    const preparedAgain = await callsOf(() => store.prepareCreate());
    const firstOfTwo = await callsOf(() => store.createPet(REX));
    const stillReady = await callsOf(() => store.prepareCreate());
    const lastOfBlock = await callsOf(() => store.createPet(REX));
    const unprepared = await callsOf(() => store.createPet(REX));
    nowMs += ID_BLOCK_LIFETIME_MS;
    const expired = await callsOf(() => store.prepareCreate());

    expect(prepared).toEqual(['UpdateItemCommand']);
    expect(create).toEqual(['PutItemCommand']);
    expect(preparedAgain).toEqual(['UpdateItemCommand']);
    expect(firstOfTwo).toEqual(['PutItemCommand']);
    expect(stillReady).toEqual([]);
    expect(lastOfBlock).toEqual(['PutItemCommand']);
    expect(unprepared).toEqual(['UpdateItemCommand', 'PutItemCommand']);
    expect(expired).toEqual(['UpdateItemCommand']);
  });

  it('leases again for a caller whose shared lease was cut short by the deadline of another', async () => {
    const pets = await freshTable();
    const store = new DynamoDBPetStore(counted, petTables(pets));

    const [cut, shared] = await Promise.allSettled([
      store.prepareCreate({ signal: AbortSignal.abort() }),
      store.prepareCreate(),
    ]);
    calls.length = 0;
    const pet = await store.createPet(REX);

    expect(cut.status).toBe('rejected');
    expect(shared.status).toBe('fulfilled');
    expect(calls).toEqual(['PutItemCommand']);
    expect(pet.id).toBeGreaterThan(0);
  });

  it('never shows the sequence item as a pet', async () => {
    const pets = await freshTable();
    const store = new DynamoDBPetStore(client, petTables(pets));
    await store.createPet(REX);

    const only = { pets: [{ ...REX, id: 1 }], hasMore: false };
    expect(await store.listPets({ limit: 100 })).toEqual(only);
    expect(await store.listPets({ limit: 100, status: 'available' })).toEqual(only);
  });
});
