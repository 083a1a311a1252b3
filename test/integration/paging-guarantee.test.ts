/**
 * The paging guarantee of docs/api.md ("Order and paging guarantees"), through the listPets
 * handler and its page cache on DynamoDB Local, on a clock of the test's own: a client follows
 * `Link` while pets are created by four pet-store instances (four createPet function instances)
 * and by one whose write lands late; every pet created at least the tail pages' second before the
 * walk began is listed exactly once, a pet created during the walk at most once, in ascending id.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { listPetsHandler } from '../../functions/handlers/list-pets.ts';
import { createTables } from '../../infra/local/create-tables.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { DynamoDBPetStore } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { PETS_TABLE } from '../../shared/dynamodb/tables.ts';
import { PageCache, TAIL_PAGE_TTL_MS } from '../../shared/pets/page-cache.ts';
import { PET_STATUSES, type Pet, type PetStatus } from '../../shared/pets/schemas.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import { petTables } from '../support/pet-tables.ts';

/** The test's clock, epoch ms: every store reads it. */
let clock = Date.UTC(2030, 0, 1, 12);
const now = () => clock;
const client = createDocumentClient();
let creators: DynamoDBPetStore[];
let listPets: ReturnType<typeof listPetsHandler>;
let created = 0;

/** A client whose PutItem waits until `release` is called: a createPet whose write lands late. */
function clientHoldingPuts() {
  const held = createDocumentClient();
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  held.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutItemCommand') await gate;
      return next(args);
    },
    { step: 'initialize', name: 'holdPuts' },
  );
  return { held, release };
}

/** `count` pets, statuses in turn, each creator creating one at a time, all four at once. */
async function createPets(count: number): Promise<Pet[]> {
  const pets: Pet[] = [];
  for (let start = 0; start < count; start += creators.length) {
    const batch = creators.slice(0, count - start).map((store) => {
      const status = PET_STATUSES[created % PET_STATUSES.length] ?? 'available';
      created += 1;
      return store.createPet({ name: `Walked ${created}`, categoryId: 1, status });
    });
    pets.push(...(await Promise.all(batch)));
  }
  return pets;
}

/** Every page of a walk from `?limit=…&status=…`, following `Link`; `between` runs between pages. */
async function walk(status: PetStatus | undefined, between: () => Promise<void>): Promise<Pet[]> {
  const listed: Pet[] = [];
  let query = new URLSearchParams({ limit: '10', ...(status ? { status } : {}) });
  for (let page = 0; page < 50; page++) {
    const event = authorizedEvent({ method: 'GET', resource: '/pets', path: '/pets', query });
    const result: APIGatewayProxyResult = await listPets(event, createLambdaContext('list-pets'));
    expect(result.statusCode).toBe(200);
    listed.push(...(JSON.parse(result.body) as Pet[]));
    const link = result.headers?.Link;
    if (typeof link !== 'string') return listed;
    query = new URL(/^<([^>]+)>; rel="next"$/.exec(link)?.[1] ?? '', 'http://local').searchParams;
    await between();
  }
  throw new Error('more than 50 pages');
}

/** Checks the guarantee: `before` exactly once, `during` at most once, nothing else, ascending. */
function expectGuarantee(listed: Pet[], before: Pet[], during: Pet[]) {
  const ids = listed.map((pet) => pet.id);
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
  expect(listed).toEqual(expect.arrayContaining(before));
  const known = new Set([...before, ...during].map((pet) => pet.id));
  expect(ids.filter((id) => !known.has(id))).toEqual([]);
}

describe('walking listPets while pets are created', () => {
  const existing: Pet[] = [];

  beforeAll(async () => {
    const suffix = randomBytes(4).toString('hex');
    const env = await createTables(client, (table) => `${table.localName}-walk-${suffix}`);
    const tables = petTables(env[PETS_TABLE.envVar] ?? '');
    creators = Array.from({ length: 4 }, () => new DynamoDBPetStore(client, tables, { now }));
    const reader = new DynamoDBPetStore(client, tables, { now, pageCache: new PageCache() });
    const { settings, rateLimiter } = createContainer();
    listPets = listPetsHandler({ settings, rateLimiter, pets: reader });

    // A minute before the walks: pets whose pages are settled when the walks read them.
    clock -= 60_000;
    existing.push(...(await createPets(1))); // alone: the first create seeds the sequence
    existing.push(...(await createPets(39)));
    // 4 s before: a create whose write is held, then more, so that its id lies inside full pages.
    clock += 56_000;
    const slow = clientHoldingPuts();
    const late = new DynamoDBPetStore(slow.held, tables, { now }).createPet({
      name: 'Late',
      categoryId: 1,
      status: 'available',
    });
    existing.push(...(await createPets(60)));
    // 3 s before: another client walks, filling the cache without the late pet; then it lands.
    clock += 1_000;
    for (const status of [undefined, 'available'] as const) await walk(status, async () => {});
    slow.release();
    existing.push(await late);
    clock += 3_000 - TAIL_PAGE_TTL_MS;
  });

  it.each([undefined, 'available'] as const)(
    'lists every pet that existed when the walk began exactly once, new ones at most once (status %s)',
    async (status) => {
      clock += TAIL_PAGE_TTL_MS;
      const during: Pet[] = [];

      const listed = await walk(status, async () => {
        during.push(...(await createPets(4)));
        clock += 250;
      });

      const before = existing.filter((pet) => !status || pet.status === status);
      expectGuarantee(listed, before, status ? during.filter((p) => p.status === status) : during);
      existing.push(...during);
    },
  );
});
