/**
 * `npm run bench` (latency model): every DynamoDB call held `BENCH_DELAY_MS` (default 5 ms, about
 * an in-region round trip on AWS) by a proxy in front of DynamoDB Local; each operation through the
 * local gateway with a warm authorizer cache, beside its floor: a handler that makes only the
 * operation's one store call, behind the same gateway. The remote side (the proxy's process and
 * DynamoDB Local's JVM) is pinned to a CPU of its own, the bench to the others. Prints p50, p99,
 * the sequential round trips and the calls of each operation, and p50 over the floor's
 * (docs/measurements.md).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startGateway } from '../infra/local/gateway.ts';
import { grantedEndpoint } from '../infra/local/iam.ts';
import type { OperationHandlers } from '../infra/local/invocation.ts';
import { ROUTES } from '../infra/routes.ts';
import { createDocumentClient } from '../shared/dynamodb/clients.ts';
import { DynamoDBPetStore, petsTablesOf } from '../shared/dynamodb/dynamodb-pet-store.ts';
import { StatusIndex } from '../shared/dynamodb/status-index.ts';
import { IDEMPOTENCY_TABLE, PETS_TABLE } from '../shared/dynamodb/tables.ts';
import type { HttpMethod, OperationId } from '../shared/operations.ts';
import { CursorCodec } from '../shared/pets/cursor.ts';
import type { PetStatus } from '../shared/pets/schemas.ts';
import { cursorCodecFromSettings } from '../shared/secrets.ts';
import { readSettings } from '../shared/settings.ts';
import { pinRemoteSide } from './affinity.ts';
import { unlimitedKey, withLocalStack } from './bench-setup.ts';
import { sequentialRoundTrips, startDelayingProxyProcess } from './delaying-proxy.ts';
import { formatMs as fmt, percentiles } from './stats.ts';

const DELAY_MS = Number(process.env.BENCH_DELAY_MS ?? 5);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const WARM_UP = 100;
/** Pets for the listPets row: a full page (20, and one to tell more follow) after each cursor. */
const LISTED_PETS = WARM_UP + SAMPLES + 21;

/** One row: a request, and the most its p50 may be over its floor's (issue 26). */
interface Case {
  readonly name: string;
  readonly method: HttpMethod;
  /** Path below the stage, with the query; called once a sample, for the operation and its floor. */
  readonly path: () => string;
  readonly headers?: () => Record<string, string>;
  readonly target: number;
}

await withLocalStack(async (endpoint, javaPid) => {
  const proxy = await startDelayingProxyProcess(endpoint, DELAY_MS);
  const pinning = pinRemoteSide([javaPid, proxy.pid]);
  const listed = await seedAvailablePets(endpoint);
  // Read by the functions' clients, built at their first request.
  process.env.DYNAMODB_ENDPOINT = proxy.endpoint;
  // Each floor calls through its operation's role endpoint (infra/local/iam.ts), as the operation.
  const clients = Object.fromEntries(
    await Promise.all(
      ROUTES.map(async (route) => [
        route.operationId,
        createDocumentClient({ endpoint: await grantedEndpoint(route) }),
      ]),
    ),
  ) as FloorClients;
  const { token } = await unlimitedKey();
  // An hour: no authorizer call during the run, as with a warm cache.
  const warm = { port: 0, authorizerCacheTtlSeconds: 3_600 };
  const gateway = await startGateway(warm);
  const floor = await startGateway({ ...warm, handlers: floorHandlers(clients) });
  try {
    const body = JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available' });
    const send = async (url: string, c: Case, path: string) => {
      const response = await fetch(`${url}${path}`, {
        method: c.method,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...c.headers?.(),
        },
        body: c.method === 'POST' ? body : undefined,
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${text}`);
      return text;
    };
    const create: Case = { name: '', method: 'POST', path: () => '/pets', target: 0 };
    const created = JSON.parse(await send(gateway.url, create, '/pets'));
    const codec = new CursorCodec(String(process.env.CURSOR_KEY));
    let page = 0;
    const cases: Case[] = [
      { name: 'getPet', method: 'GET', path: () => `/pets/${created.id}`, target: 1.15 },
      {
        // A page no request has read, after a cursor of its own: the function's page cache
        // would answer a page read before with the limiter's call alone.
        name: 'listPets, uncached page',
        method: 'GET',
        path: () => {
          const afterId = listed[page++ % (listed.length - 21)] as number;
          return `/pets?status=available&cursor=${codec.encode({ status: 'available', afterId })}`;
        },
        target: 1.15,
      },
      { ...create, name: 'createPet', target: 2.2 },
      {
        ...create,
        name: 'createPet + Idempotency-Key',
        headers: () => ({ 'idempotency-key': randomUUID() }),
        target: 2.2,
      },
    ];
    console.log(
      `Latency model: every DynamoDB call held ${DELAY_MS} ms (a proxy process in front of DynamoDB Local), through the local gateway, warm authorizer cache; ${SAMPLES} sequential requests per row after ${WARM_UP} warm-up of every row, operation and floor alternating (ms)`,
    );
    console.log(`CPUs: ${pinning}`);
    console.log(
      'operation                      p50     p99  round trips  calls |  floor p50  floor p99 | remote op/floor |  CPU op/floor   | p50/floor  target',
    );
    // Every row warm before the first is measured: the chain's code the rows share (middy, the
    // limiter, the SDK) is compiled by then, not during the first row.
    for (const c of cases) {
      for (let i = 0; i < WARM_UP; i += 1) {
        const path = c.path();
        await send(gateway.url, c, path);
        await send(floor.url, c, path);
      }
    }
    await proxy.takeCalls();
    for (const c of cases) {
      const times: [number[], number[]] = [[], []];
      // Per request, its slowest call at the proxy, from its arrival to its answer: the remote
      // side's share (the delay, then DynamoDB Local), which the rest of the time is not.
      const remote: [number[], number[]] = [[], []];
      // Per request, this process's CPU time (gateway, function, load generator; the remote side
      // is another process): what the function would pay for on AWS, and the floor.
      const cpu: [number[], number[]] = [[], []];
      const trips: number[] = [];
      const calls: number[] = [];
      for (let i = 0; i < SAMPLES; i += 1) {
        const path = c.path();
        for (const index of i % 2 === 0 ? [0, 1] : [1, 0]) {
          const [start, cpuStart] = [performance.now(), process.cpuUsage()];
          await send(index === 0 ? gateway.url : floor.url, c, path);
          times[index]?.push(performance.now() - start);
          const used = process.cpuUsage(cpuStart);
          cpu[index]?.push((used.user + used.system) / 1000);
          // After the answer: the proxy recorded each call before passing its answer on.
          const own = await proxy.takeCalls();
          remote[index]?.push(Math.max(...own.map((call) => call.end - call.start)));
          if (index === 0) {
            trips.push(sequentialRoundTrips(own));
            calls.push(own.length);
          }
        }
      }
      const [mine, floors] = [percentiles(times[0]), percentiles(times[1])];
      const ratio = mine.p50 / floors.p50;
      const roundTrips = `${median(trips)} (max ${Math.max(...trips)})`;
      const [remoteMine, remoteFloor] = remote.map((list) => fmt(median(list)));
      const [cpuMine, cpuFloor] = cpu.map((list) => fmt(median(list)));
      console.log(
        `${c.name.padEnd(28)} ${fmt(mine.p50)} ${fmt(mine.p99)}  ${roundTrips.padStart(11)} ${(calls.reduce((a, b) => a + b, 0) / calls.length).toFixed(2).padStart(6)} |    ${fmt(floors.p50)}    ${fmt(floors.p99)} | ${remoteMine} ${remoteFloor} | ${cpuMine} ${cpuFloor} |     ${ratio.toFixed(2)}x  ${ratio <= c.target ? '≤' : '>'} ${c.target}x`,
      );
    }
  } finally {
    await gateway.close();
    await floor.close();
    for (const client of Object.values(clients)) client.destroy();
    await proxy.close();
  }
});

/** The middle value of `values` (the lower of the two middle ones). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
}

/**
 * Creates {@link LISTED_PETS} pets of status `available` through the store on DynamoDB Local's
 * `endpoint` directly (no delay), 25 at a time.
 *
 * @returns Their ids, ascending.
 */
async function seedAvailablePets(endpoint: string): Promise<number[]> {
  const client = createDocumentClient({ endpoint });
  const store = new DynamoDBPetStore(client, petsTablesOf({ settings: readSettings() }));
  const ids: number[] = [];
  while (ids.length < LISTED_PETS) {
    const batch = Array.from({ length: Math.min(25, LISTED_PETS - ids.length) }, () =>
      store.createPet({ name: 'Listed', categoryId: 1, status: 'available' }),
    );
    ids.push(...(await Promise.all(batch)).map((pet) => pet.id));
  }
  client.destroy();
  return ids.sort((a, b) => a - b);
}

/** A client per operation, each on its role's DynamoDB endpoint. */
type FloorClients = Readonly<Record<OperationId, ReturnType<typeof createDocumentClient>>>;

/**
 * The floors: each answers its operation's request with only that operation's one store call on
 * its client of `clients`: getPet a strongly consistent GetItem, listPets the store's uncached
 * page (every shard's Query of the status, in parallel: one round trip, through the production
 * `StatusIndex`, listPets's port, without page cache and without limiter), createPet a conditional PutItem of
 * the pet, with `Idempotency-Key` a transaction of the pet and its record. Floor pets get ids from
 * 2^50 up, far above the service's, and status `pending`.
 */
function floorHandlers(clients: FloorClients): OperationHandlers {
  const pets = process.env[PETS_TABLE.envVar];
  const records = process.env[IDEMPOTENCY_TABLE.envVar];
  const store = new StatusIndex(clients.listPets, String(pets), { now: Date.now });
  const cursors = cursorCodecFromSettings();
  let nextId = 2 ** 50;
  type Event = {
    pathParameters: Record<string, string> | null;
    queryStringParameters: Record<string, string> | null;
    headers: Record<string, string | undefined>;
  };
  const ok = (statusCode: number, value: unknown) => ({
    statusCode,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(value),
  });
  return {
    getPet: async (event) => {
      const id = Number((event as Event).pathParameters?.petId);
      const { Item } = await clients.getPet.send(
        new GetCommand({ TableName: pets, Key: { id }, ConsistentRead: true }),
      );
      return ok(200, Item);
    },
    listPets: async (event) => {
      const query = (event as Event).queryStringParameters ?? {};
      const status = query.status as PetStatus;
      const afterId =
        query.cursor === undefined ? undefined : (await cursors()).decode(query.cursor, status);
      const page = await store.listPets({ limit: 20, status, afterId });
      return ok(200, page.pets);
    },
    createPet: async (event) => {
      nextId += 1;
      const pet = { id: nextId, name: 'Rex', categoryId: 1, status: 'pending' };
      const put = { TableName: pets, Item: pet, ConditionExpression: 'attribute_not_exists(id)' };
      const key = (event as Event).headers['idempotency-key'];
      if (key === undefined) {
        await clients.createPet.send(new PutCommand(put));
      } else {
        const record = { id: `floor#${key}`, status: 'COMPLETED', response: JSON.stringify(pet) };
        await clients.createPet.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: put },
              {
                Put: {
                  TableName: records,
                  Item: record,
                  ConditionExpression: 'attribute_not_exists(id)',
                },
              },
            ],
          }),
        );
      }
      return ok(201, pet);
    },
  };
}
