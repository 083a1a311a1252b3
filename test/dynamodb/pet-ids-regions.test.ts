/**
 * Pet ids in a stage of several regions, on DynamoDB Local (one table holds every region's items,
 * as each replica does once replication settles): each region leases on its own sequence item,
 * kept at or above the clock floor, and issues its own residue modulo 16, so the regions' ids are
 * disjoint by construction; a stage that issued ids before it had regions continues above them.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createTables } from '../../infra/local/create-tables.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBPetStore } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import {
  idFloor,
  PET_ID_SEQUENCE_ID,
  petIdOf,
  sequenceIdOf,
} from '../../shared/dynamodb/id-blocks.ts';
import { PETS_TABLE } from '../../shared/dynamodb/tables.ts';
import { MAX_REGIONS, type Regions } from '../../shared/regions.ts';
import { petTables } from '../support/pet-tables.ts';

const client = createDocumentClient();
afterAll(() => client.destroy());

const NAMES = ['us-east-1', 'eu-west-1'];
const HOME: Regions = { names: NAMES, own: 0 };
const OTHER: Regions = { names: NAMES, own: 1 };
const REX = { name: 'Rex', categoryId: 1, status: 'available' } as const;

async function freshTable(): Promise<string> {
  const suffix = randomBytes(4).toString('hex');
  const env = await createTables(client, (table) => `${table.localName}-rids-${suffix}`);
  return env[PETS_TABLE.envVar] as string;
}

async function sequenceValue(pets: string, id: number): Promise<number | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: pets, Key: { id }, ConsistentRead: true }),
  );
  return Item?.value as number | undefined;
}

describe('the id arithmetic of several regions', () => {
  it('gives the region in place n the ids value × 16 + n; one region the value itself', () => {
    expect(petIdOf(7, HOME)).toBe(7 * MAX_REGIONS);
    expect(petIdOf(7, OTHER)).toBe(7 * MAX_REGIONS + 1);
    expect(petIdOf(7, { names: ['home'], own: 0 })).toBe(7);
    expect(sequenceIdOf(0)).toBe(PET_ID_SEQUENCE_ID);
    expect(sequenceIdOf(1)).toBe(-1);
  });

  it('keeps every id of the floor a safe integer until 2204', () => {
    const last = petIdOf(idFloor(Date.UTC(2204, 0, 1)), { names: NAMES, own: MAX_REGIONS - 1 });
    expect(Number.isSafeInteger(last)).toBe(true);
    expect(idFloor(Date.UTC(2025, 0, 1))).toBe(0);
  });
});

describe('pet ids in two regions', () => {
  it('issues disjoint ids at 16-way concurrency in each region, each region its residue', async () => {
    const pets = await freshTable();
    const instancesOf = (regions: Regions) =>
      Array.from({ length: 16 }, () => new DynamoDBPetStore(client, petTables(pets), { regions }));

    const issued = await Promise.all(
      [HOME, OTHER].map(async (regions) => {
        const ids = await Promise.all(
          instancesOf(regions).map(async (store) => {
            const own: number[] = [];
            for (let i = 0; i < 10; i++) own.push((await store.createPet(REX)).id);
            return own;
          }),
        );
        return ids.flat();
      }),
    );

    const [home = [], other = []] = issued;
    expect(new Set([...home, ...other]).size).toBe(320);
    expect(home.every((id) => id % MAX_REGIONS === 0 && Number.isSafeInteger(id))).toBe(true);
    expect(other.every((id) => id % MAX_REGIONS === 1 && Number.isSafeInteger(id))).toBe(true);
    const floor = petIdOf(idFloor(Date.now() - 60_000), HOME);
    expect(Math.min(...home, ...other)).toBeGreaterThan(floor);
    expect(await sequenceValue(pets, sequenceIdOf(1))).toBeGreaterThan(0);
  });

  it('continues above the ids that the stage issued before it had regions', async () => {
    const pets = await freshTable();
    const oneRegion = new DynamoDBPetStore(client, petTables(pets));
    const before = await Promise.all([1, 2, 3].map(() => oneRegion.createPet(REX)));

    const home = await new DynamoDBPetStore(client, petTables(pets), { regions: HOME }).createPet(
      REX,
    );
    const other = await new DynamoDBPetStore(client, petTables(pets), { regions: OTHER }).createPet(
      REX,
    );

    expect(Math.max(...before.map((pet) => pet.id))).toBe(3);
    expect(home.id).toBeGreaterThan(3);
    expect(other.id).toBeGreaterThan(3);
  });

  it('leases after a sequence that is above the clock floor instead of below it', async () => {
    const pets = await freshTable();
    const ahead = idFloor(Date.now()) + 1_000_000_000;
    await client.send(new PutCommand({ TableName: pets, Item: { id: 0, value: ahead } }));

    const pet = await new DynamoDBPetStore(client, petTables(pets), { regions: HOME }).createPet(
      REX,
    );

    expect(pet.id).toBe(petIdOf(ahead + 1, HOME));
    expect(await sequenceValue(pets, PET_ID_SEQUENCE_ID)).toBe(ahead + 1);
  });

  it('keeps ids of two regions in creation order across regions, a second apart', async () => {
    const pets = await freshTable();
    const other = await new DynamoDBPetStore(client, petTables(pets), { regions: OTHER }).createPet(
      REX,
    );
    const later = Date.now() + 1_000;
    const home = new DynamoDBPetStore(client, petTables(pets), { regions: HOME, now: () => later });

    expect((await home.createPet(REX)).id).toBeGreaterThan(other.id);
  });
});
