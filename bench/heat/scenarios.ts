/**
 * The heat meter's scenarios (the 10× targets of docs/operations.md): the load each sends through the operations' handlers,
 * and the pets each seeds before its metered window.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { createPetHandler } from '../../functions/handlers/create-pet.ts';
import { getPetHandler } from '../../functions/handlers/get-pet.ts';
import { listPetsHandler } from '../../functions/handlers/list-pets.ts';
import { createLambdaContext, createProxyEvent } from '../../infra/local/events.ts';
import type { Container } from '../../shared/container.ts';
import type { DynamoDBBase } from '../../shared/dynamodb/base.ts';
import { DynamoDBPetStore } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { PageCache } from '../../shared/pets/page-cache.ts';
import { PET_STATUSES, type PetStatus } from '../../shared/pets/schemas.ts';
import { ENTERPRISE_PLAN, MAX_PER_DAY, MAX_PER_MINUTE, PLANS } from '../../shared/plans.ts';

/** The one status the single-status scenarios create and list. */
const STATUS: PetStatus = 'available';

/**
 * Keys the background traffic takes in turn (Business limits, which no scenario reaches): a prime,
 * so that every instance run meets every key.
 */
const BACKGROUND_KEYS = 1_009;

/** Most pages a listing's walk follows (bench loops are bounded by a count). */
const MAX_PAGES = 1_000;

/** The ports of one function instance, with the simulated clock as its `now`. */
export type InstanceContainer = Pick<Container, 'settings' | 'pets' | 'rateLimiter' | 'now'>;

/**
 * An instance's container as its Lambda entry builds it (functions/*.ts): its own pet store (id
 * blocks, page cache), idempotency records and rate limiter on `base`, all reading `now`.
 */
export function instanceContainer(base: DynamoDBBase, now: () => number): InstanceContainer {
  return {
    settings: base.settings,
    // One store per instance with every entry's options: its id blocks, records and page cache.
    pets: DynamoDBPetStore.from(base, {
      pageCache: new PageCache(),
      now,
    }),
    rateLimiter: DynamoDBRateLimiter.from(base),
    now,
  };
}

/** An operation's Lambda handler. */
export type Handler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** A scenario's load, ready to run: its instances' handler and its requests. */
export interface PreparedLoad {
  /** The operation's handler on an instance's container. */
  readonly handlerOf: (container: InstanceContainer) => Handler;
  /**
   * Request `i`, the `n`th request run. What varies (key, page, pet) goes in turn by `n`, so that a
   * sampled run sends each value exactly its share of the requests run.
   */
  readonly eventOf: (i: number, n: number) => APIGatewayProxyEvent;
}

/** One scenario of the heat meter. */
export interface Scenario {
  /** Its name on the command line (`--scenario`). */
  readonly name: string;
  /** What it sends, e.g. `createPet of status "available"`. */
  readonly title: string;
  /** Requests per simulated second. */
  readonly rate: number;
  /** The HTTP status every request should answer. */
  readonly status: number;
  /**
   * Instances run unless `--instances` says otherwise: all of them where the hot partitions are
   * hashed shards, whose load a sample knows only to about ±1/√n. @default 20 (DEFAULT_SAMPLED)
   */
  readonly sampledInstances?: number;
  /**
   * Seeds the scenario's tables before its metered window (through `seedContainer`'s store and
   * handlers, so in whatever layout the code writes; its clock a minute before the window) and
   * returns its load.
   */
  prepare(seedContainer: InstanceContainer): Promise<PreparedLoad>;
}

/** The authorizer context of a key (as API Gateway passes it to the functions). */
function authorizerOf(keyId: string, plan: string, perMinute: number, perDay: number) {
  return { keyId, plan, perMinute, perDay, principalId: keyId };
}

/** The `n`th request's Business key: the {@link BACKGROUND_KEYS} keys in turn. */
function backgroundKey(n: number) {
  const { perMinute, perDay } = PLANS.business;
  return authorizerOf(`key_heat${n % BACKGROUND_KEYS}`, 'business', perMinute, perDay);
}

/** Creates `count` pets, `statusOf(n)` each, 16 at a time; @returns their ids. */
async function seedPets(
  container: InstanceContainer,
  count: number,
  statusOf: (n: number) => PetStatus,
): Promise<number[]> {
  const ids: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < count; n = next++) {
      const pet = await container.pets.createPet({
        name: `Pet ${n}`,
        categoryId: 1,
        status: statusOf(n),
      });
      ids.push(pet.id);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return ids;
}

/** A listPets event with this query string. */
function listEvent(query: string, n: number): APIGatewayProxyEvent {
  return createProxyEvent({
    method: 'GET',
    resource: '/pets',
    path: '/pets',
    query: new URLSearchParams(query),
    authorizer: backgroundKey(n),
  });
}

/**
 * The query strings of every page of `first`'s listing: `first`, then each `Link` rel="next" in
 * turn (walked through the listPets handler, as a client pages).
 */
async function pageQueries(container: InstanceContainer, first: string): Promise<string[]> {
  const handler = listPetsHandler(container);
  const queries = [first];
  for (let query: string | undefined = first; query !== undefined; ) {
    if (queries.length > MAX_PAGES) throw new Error(`${first}: more than ${MAX_PAGES} pages`);
    const result: APIGatewayProxyResult = await handler(
      listEvent(query, queries.length),
      createLambdaContext('list-pets'),
    );
    if (result.statusCode !== 200)
      throw new Error(`listPets ?${query} answered ${result.statusCode}`);
    const next = /^<([^>]+)>/.exec(String(result.headers?.Link ?? ''))?.[1];
    query = next === undefined ? undefined : new URL(next, 'http://local').search.slice(1);
    if (query !== undefined) queries.push(query);
  }
  return queries;
}

/** Every other request asks for the first page, the others for the deeper pages in turn. */
function firstOrDeeper(pages: readonly string[]) {
  return (_i: number, n: number) => {
    const deeper = n % 2 === 1 && pages.length > 1;
    const page = deeper ? 1 + (Math.floor(n / 2) % (pages.length - 1)) : 0;
    return listEvent(pages[page] ?? '', n);
  };
}

/** listPets of `first`'s listing over `count` seeded pets, first pages and deeper ones mixed. */
function listing(count: number, statusOf: (n: number) => PetStatus, first: string) {
  return async (container: InstanceContainer): Promise<PreparedLoad> => {
    await seedPets(container, count, statusOf);
    const pages = await pageQueries(container, first);
    return { handlerOf: listPetsHandler, eventOf: firstOrDeeper(pages) };
  };
}

/** The scenarios, in the order the bench runs them. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'creates',
    title: `createPet of status "${STATUS}", each with an Idempotency-Key (as the official client sends)`,
    rate: 10_000,
    status: 201,
    // Every instance: a sample of 20 put the busiest of 32 shards at 0.82 where the full run has 0.69.
    sampledInstances: 200,
    async prepare() {
      return {
        handlerOf: createPetHandler,
        eventOf: (i, n) =>
          createProxyEvent({
            method: 'POST',
            resource: '/pets',
            path: '/pets',
            headers: { 'Content-Type': 'application/json', 'Idempotency-Key': `heat-${i}` },
            body: JSON.stringify({ name: `Pet ${i}`, categoryId: 1, status: STATUS }),
            authorizer: backgroundKey(n),
          }),
      };
    },
  },
  {
    name: 'lists',
    title: `listPets?status=${STATUS} over 500 pets (limit 20), first pages and deeper pages by cursor`,
    rate: 30_000,
    status: 200,
    prepare: listing(500, () => STATUS, `status=${STATUS}`),
  },
  {
    name: 'key',
    title: `getPet of 100 pets in turn, every request of one Enterprise key at its highest limits (shared/plans.ts: ${MAX_PER_MINUTE.toLocaleString('en-US')}/min)`,
    rate: 10_000,
    status: 200,
    async prepare(container) {
      const ids = await seedPets(container, 100, () => STATUS);
      const key = authorizerOf(
        'key_heatEnterprise',
        ENTERPRISE_PLAN.id,
        MAX_PER_MINUTE,
        MAX_PER_DAY,
      );
      return {
        handlerOf: getPetHandler,
        eventOf: (_i, n) => {
          const petId = String(ids[n % ids.length]);
          return createProxyEvent({
            method: 'GET',
            resource: '/pets/{petId}',
            path: `/pets/${petId}`,
            pathParameters: { petId },
            authorizer: key,
          });
        },
      };
    },
  },
  {
    name: 'list-all',
    title: `listPets without status over 300 pets of ${PET_STATUSES.length} statuses (limit 20), first pages and deeper pages`,
    rate: 10_000,
    status: 200,
    prepare: listing(300, (n) => PET_STATUSES[n % PET_STATUSES.length] ?? STATUS, ''),
  },
];
