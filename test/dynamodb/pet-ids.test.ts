/**
 * Pet ids in leased blocks on DynamoDB Local: unique across instances (stores of their own, as
 * function instances are), ascending within a block, dropped after their lifetime on the store's
 * clock, and leased beside the rate limiter's call (`prepareCreate`) so that a create is one call.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createTables } from '../../infra/local/tables.ts';
import { createDocumentClient } from '../../shared/clients.ts';
import { DynamoDBPetStore } from '../../shared/pets/dynamodb-pet-store.ts';
import { PET_ID_SEQUENCE_ID } from '../../shared/pets/id-blocks.ts';
import { ID_BLOCK_LIFETIME_MS } from '../../shared/pets/id-order.ts';
import { PETS_TABLE } from '../../shared/tables.ts';

const client = createDocumentClient();
/** Every call the counted client sends, by command name (e.g. `UpdateItemCommand`). */
const calls: string[] = [];
const counted = createDocumentClient();
counted.middlewareStack.add(
  (next, context) => (args) => {
    calls.push(context.commandName ?? '');
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

describe('pet ids in leased blocks', () => {
  it('starts at 1 on a new table and leases the next block once one is spent', async () => {
    const pets = await freshTable();
    const store = new DynamoDBPetStore(client, { pets }, { idBlockSize: 3 });

    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await store.createPet(REX)).id);

    expect(ids).toEqual([1, 2, 3, 4]);
    expect(await sequenceValue(pets)).toBe(6);
  });

  it('shares one lease among the concurrent creates of one instance', async () => {
    const pets = await freshTable();
    const store = new DynamoDBPetStore(client, { pets }, { idBlockSize: 3 });

    const created = await Promise.all(Array.from({ length: 10 }, () => store.createPet(REX)));

    expect(created.map((pet) => pet.id).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    expect(await sequenceValue(pets)).toBe(12);
  });

  it('gives unique ids to concurrent creates on several instances, ascending on each', async () => {
    const pets = await freshTable();
    const instances = Array.from(
      { length: 4 },
      () => new DynamoDBPetStore(client, { pets }, { idBlockSize: 5 }),
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
    // Every id came from a lease of 5, and no lease was lost: the sequence is a multiple of 5.
    expect(Number(await sequenceValue(pets)) % 5).toBe(0);
    const { pets: listed } = await new DynamoDBPetStore(client, { pets }).listPets({ limit: 100 });
    expect(listed.map((pet) => pet.id)).toEqual([...all].sort((a, b) => a - b));
  });

  it('drops a block once its lifetime has passed on the store clock, never reusing its ids', async () => {
    const pets = await freshTable();
    let nowMs = 1_000_000;
    const store = new DynamoDBPetStore(client, { pets }, { idBlockSize: 10, now: () => nowMs });

    const first = await store.createPet(REX);
    nowMs += ID_BLOCK_LIFETIME_MS - 1;
    const stillFresh = await store.createPet(REX);
    nowMs += 1;
    const afterLifetime = await store.createPet(REX);

    expect([first.id, stillFresh.id, afterLifetime.id]).toEqual([1, 2, 11]);
    expect(await sequenceValue(pets)).toBe(20);
  });

  it('makes the next create a single call once prepareCreate has leased a block', async () => {
    const pets = await freshTable();
    let nowMs = 1_000_000;
    const store = new DynamoDBPetStore(counted, { pets }, { idBlockSize: 2, now: () => nowMs });
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
    const lastOfBlock = await callsOf(() => store.createPet(REX));
    const unprepared = await callsOf(() => store.createPet(REX));
    nowMs += ID_BLOCK_LIFETIME_MS;
    const expired = await callsOf(() => store.prepareCreate());

    expect(prepared).toEqual(['UpdateItemCommand']);
    expect(create).toEqual(['PutItemCommand']);
    expect(preparedAgain).toEqual([]);
    expect(lastOfBlock).toEqual(['PutItemCommand']);
    expect(unprepared).toEqual(['UpdateItemCommand', 'PutItemCommand']);
    expect(expired).toEqual(['UpdateItemCommand']);
  });

  it('leases again for a caller whose shared lease was cut short by the deadline of another', async () => {
    const pets = await freshTable();
    const store = new DynamoDBPetStore(counted, { pets });

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
    const store = new DynamoDBPetStore(client, { pets });
    await store.createPet(REX);

    const only = { pets: [{ ...REX, id: 1 }], hasMore: false };
    expect(await store.listPets({ limit: 100 })).toEqual(only);
    expect(await store.listPets({ limit: 100, status: 'available' })).toEqual(only);
  });
});
