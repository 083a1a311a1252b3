/**
 * `npm run bench` (third part): listPets's first page on tables of 100 and 10,000 pets, and paging
 * through 10,000 pets, on DynamoDB Local (what it measures: docs/measurements.md).
 */
import { performance } from 'node:perf_hooks';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { listPetsHandler } from '../functions/handlers/list-pets.ts';
import { createTables } from '../infra/local/create-tables.ts';
import { createLambdaContext, createProxyEvent } from '../infra/local/events.ts';
import { grantedEnvironment } from '../infra/local/iam.ts';
import { routeOf } from '../infra/routes.ts';
import { createDocumentClient } from '../shared/dynamodb/clients.ts';
import { createContainer } from '../shared/dynamodb/dynamodb-container.ts';
import { DynamoDBPetStore, petsTablesOf } from '../shared/dynamodb/dynamodb-pet-store.ts';
import { petItem } from '../shared/dynamodb/pet-item.ts';
import { IDEMPOTENCY_TABLE, PETS_TABLE } from '../shared/dynamodb/tables.ts';
import type { ListPetsOptions } from '../shared/pets/pet-store.ts';
import { PET_STATUSES } from '../shared/pets/schemas.ts';
import { readSettings, requiredSetting } from '../shared/settings.ts';
import { unlimitedKey, withLocalStack } from './bench-setup.ts';
import { formatMs, type Percentiles, percentiles } from './stats.ts';
import { countStatusIndexReads } from './status-index-reads.ts';

const WARM_UP = 100;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const SMALL = 100;
const LARGE = 10_000;
const FIRST_PAGES: readonly [string, ListPetsOptions][] = [
  ['limit=20', { limit: 20 }],
  ['limit=20&status=available', { limit: 20, status: 'available' }],
];
const PAGING_LIMIT = 100;

await withLocalStack(async (endpoint) => {
  const container = createContainer(await grantedEnvironment(routeOf('listPets')));
  const usage = countStatusIndexReads(container.client);
  const handler = listPetsHandler(container);
  const { authorizer } = await unlimitedKey();
  const client = createDocumentClient({ endpoint });

  /** One listPets call with this query string; the answer must be a 200. */
  async function listPets(query: string): Promise<APIGatewayProxyResult> {
    const event = createProxyEvent({
      method: 'GET',
      resource: '/pets',
      path: '/pets',
      query: new URLSearchParams(query),
      authorizer,
    });
    const result = await handler(event, createLambdaContext('list-pets'));
    if (result.statusCode !== 200)
      throw new Error(`listPets ?${query} answered ${result.statusCode}`);
    return result;
  }

  /** Writes pets 1 to `count` into `table`, statuses in turn, 25 per BatchWriteItem. */
  async function seed(table: string, count: number): Promise<void> {
    for (let start = 1; start <= count; start += 25) {
      const ids = Array.from({ length: Math.min(25, count - start + 1) }, (_, i) => start + i);
      const requests = ids.map((id) => ({
        PutRequest: {
          Item: petItem(
            {
              id,
              name: `Pet ${id}`,
              categoryId: 1,
              status: PET_STATUSES[id % PET_STATUSES.length] ?? 'available',
            },
            Date.now(),
          ),
        },
      }));
      let unprocessed: typeof requests | undefined = requests;
      for (let attempt = 0; unprocessed?.length && attempt < 10; attempt++) {
        const output = await client.send(
          new BatchWriteCommand({ RequestItems: { [table]: unprocessed } }),
        );
        unprocessed = output.UnprocessedItems?.[table] as typeof requests | undefined;
      }
    }
  }

  /** Times `a` and `b` SAMPLES times each after WARM_UP rounds, alternating; in ms. */
  async function samplePair(a: () => Promise<unknown>, b: () => Promise<unknown>) {
    const times: [number[], number[]] = [[], []];
    for (let i = 0; i < WARM_UP + SAMPLES; i++) {
      for (const [index, fn] of [a, b].entries()) {
        const start = performance.now();
        await fn();
        if (i >= WARM_UP) times[index]?.push(performance.now() - start);
      }
    }
    return { a: percentiles(times[0]), b: percentiles(times[1]) };
  }

  const row = (query: string, pets: number, figures: Percentiles, ratio = '') =>
    console.log(
      `${query.padEnd(28)} ${String(pets).padStart(6)} ${formatMs(figures.p50)} ${formatMs(figures.p95)}   ${ratio}`,
    );

  const smallTables = await createTables(client, (table) => `${table.localName}-small`);
  const small = new DynamoDBPetStore(client, {
    pets: smallTables[PETS_TABLE.envVar] ?? '',
    idempotency: smallTables[IDEMPOTENCY_TABLE.envVar] ?? '',
  });
  const large = new DynamoDBPetStore(client, petsTablesOf({ settings: readSettings() }));
  await seed(smallTables[PETS_TABLE.envVar] ?? '', SMALL);
  await seed(requiredSetting(readSettings(), PETS_TABLE.envVar), LARGE);

  console.log(
    `PetStore.listPets, first page, ${SAMPLES} calls per row after ${WARM_UP} warm-up, ${SMALL} and ${LARGE} pets alternating (ms)`,
  );
  console.log('query                        pets      p50     p95   p50 vs 100 pets');
  for (const [query, options] of FIRST_PAGES) {
    const { a, b } = await samplePair(
      () => small.listPets(options),
      () => large.listPets(options),
    );
    row(query, SMALL, a);
    row(query, LARGE, b, `${(b.p50 / a.p50).toFixed(2)}x`);
  }

  console.log(`\nlistPets handler (+ rate limiter), first page on ${LARGE} pets (ms)`);
  const [withoutStatus = '', withStatus = ''] = FIRST_PAGES.map(([query]) => query);
  const viaHandler = await samplePair(
    () => listPets(withoutStatus),
    () => listPets(withStatus),
  );
  row(withoutStatus, LARGE, viaHandler.a);
  row(withStatus, LARGE, viaHandler.b);

  console.log(
    `\nPaging through ${LARGE} pets with limit=${PAGING_LIMIT}, following Link rel="next"`,
  );
  console.log('query                         pets  pages   total ms  calls  items read   RCU');
  for (const status of [undefined, 'available'] as const) {
    const before = { ...usage };
    let query = `limit=${PAGING_LIMIT}${status ? `&status=${status}` : ''}`;
    let pages = 0;
    let pets = 0;
    const start = performance.now();
    for (; pages < 1000; ) {
      const result = await listPets(query);
      pages += 1;
      pets += (JSON.parse(result.body) as unknown[]).length;
      const link = result.headers?.Link;
      if (typeof link !== 'string') break;
      query = new URL(/^<([^>]+)>/.exec(link)?.[1] ?? '', 'http://local').search.slice(1);
    }
    const total = performance.now() - start;
    console.log(
      `${`limit=${PAGING_LIMIT}${status ? `&status=${status}` : ''}`.padEnd(28)} ${String(pets).padStart(6)} ${String(pages).padStart(6)} ${total.toFixed(0).padStart(10)} ${String(usage.calls - before.calls).padStart(6)} ${String(usage.itemsRead - before.itemsRead).padStart(11)} ${(usage.readUnits - before.readUnits).toFixed(1).padStart(6)}`,
    );
  }
  client.destroy();
});
