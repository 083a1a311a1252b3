/**
 * `npm run bench` (first part): latency and throughput of each operation on the local stack, the
 * handler called directly and through the local gateway over HTTP, on DynamoDB Local; with
 * `BENCH_BASELINE=<another checkout>` that checkout's handlers too (docs/measurements.md).
 */

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createLambdaContext, createProxyEvent } from '../infra/local/events.ts';
import { startGateway } from '../infra/local/gateway.ts';
import { grantedEnvironment } from '../infra/local/iam.ts';
import { REPOSITORY_ROOT } from '../infra/repository.ts';
import { ROUTES } from '../infra/routes.ts';
import { unlimitedKey, withLocalStack } from './bench-setup.ts';
import { meterEveryDocumentClient } from './meter.ts';
import { formatMs as fmt, type Percentiles, percentiles, throughput } from './stats.ts';

const WARM_UP = 30;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const CONCURRENCY = 16;
const CONCURRENT_REQUESTS = 800;
const COST_SAMPLES = 50;
const REPLAYED_KEY = randomUUID();
const BASELINE = process.env.BENCH_BASELINE;

interface Case {
  name: string;
  method: string;
  resource: string;
  path: string;
  pathParameters?: Record<string, string>;
  query?: string;
  body?: string;
  /** Headers of this request only, made afresh for each request. */
  extraHeaders?: () => Record<string, string>;
  entry: string;
}

await withLocalStack(run);

async function run(): Promise<void> {
  const { token, authorizer } = await unlimitedKey();
  const gateway = await startGateway({ port: 0 });
  const body = JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available' });
  const cases: Case[] = [
    {
      name: 'createPet',
      method: 'POST',
      resource: '/pets',
      path: '/pets',
      body,
      entry: 'create-pet',
    },
    {
      name: 'createPet + Idempotency-Key',
      method: 'POST',
      resource: '/pets',
      path: '/pets',
      body,
      extraHeaders: () => ({ 'idempotency-key': randomUUID() }),
      entry: 'create-pet',
    },
    {
      name: 'createPet replayed',
      method: 'POST',
      resource: '/pets',
      path: '/pets',
      body,
      // The first request with this key creates; every later one is a replay.
      extraHeaders: () => ({ 'idempotency-key': REPLAYED_KEY }),
      entry: 'create-pet',
    },
    {
      name: 'getPet',
      method: 'GET',
      resource: '/pets/{petId}',
      path: '/pets/1',
      pathParameters: { petId: '1' },
      entry: 'get-pet',
    },
    {
      name: 'listPets ?limit=20',
      method: 'GET',
      resource: '/pets',
      path: '/pets',
      query: 'limit=20',
      entry: 'list-pets',
    },
    {
      name: 'listPets ?status=available',
      method: 'GET',
      resource: '/pets',
      path: '/pets',
      query: 'status=available',
      entry: 'list-pets',
    },
  ];
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  type Request = () => Promise<void>;
  type Handler = (event: unknown, context: unknown) => Promise<{ statusCode: number }>;
  const requests: { name: string; direct: Request; gateway: Request; baseline?: Request }[] = [];
  for (const c of cases) {
    const route = ROUTES.find(({ entry }) => entry === `functions/${c.entry}.ts`);
    if (!route) throw new Error(`No route has the entry ${c.entry}`);
    // With its grants, as the gateway would import it (the first import decides).
    /** The entry's handler in `root`, built in the function's environment (its role's endpoint). */
    const handlerOf = async (root: string) => {
      const entry = (await import(pathToFileURL(join(root, route.entry)).href)) as {
        createHandler: (env: NodeJS.ProcessEnv) => Handler;
      };
      return entry.createHandler(await grantedEnvironment(route));
    };
    /** Calls `handler` with the case's event, as the Lambda runtime does. */
    const direct = (handler: Handler) => async () => {
      const event = createProxyEvent({
        method: c.method,
        resource: c.resource,
        path: c.path,
        pathParameters: c.pathParameters ?? null,
        query: new URLSearchParams(c.query ?? ''),
        headers: { ...headers, ...c.extraHeaders?.() },
        body: c.body ?? null,
        authorizer,
      });
      const result = await handler(event, createLambdaContext(c.entry));
      if (result.statusCode >= 300) throw new Error(`${c.name} answered ${result.statusCode}`);
    };
    const url = `${gateway.url}${c.path}${c.query ? `?${c.query}` : ''}`;
    requests.push({
      name: c.name,
      direct: direct(await handlerOf(REPOSITORY_ROOT)),
      baseline: BASELINE ? direct(await handlerOf(BASELINE)) : undefined,
      gateway: async () => {
        const response = await fetch(url, {
          method: c.method,
          headers: { ...headers, ...c.extraHeaders?.() },
          body: c.body,
        });
        await response.arrayBuffer();
        if (response.status >= 300) throw new Error(`${c.name} answered ${response.status}`);
      },
    });
  }

  // Warm every path (JIT here and in DynamoDB Local's JVM) before measuring any.
  for (const request of requests) {
    for (let i = 0; i < WARM_UP; i += 1) {
      await request.direct();
      await request.gateway();
      await request.baseline?.();
    }
  }
  console.log(
    `Local stack: ${SAMPLES} sequential requests per row, direct and gateway alternating, after ${WARM_UP} warm-up each (ms)`,
  );
  console.log('operation                    via          p50     p95     p99   gateway/direct p50');
  for (const request of requests) {
    const [direct, viaGateway] = await samplePair(request.direct, request.gateway);
    for (const [label, figures] of [
      ['direct', direct],
      ['gateway', viaGateway],
    ] as const) {
      const ratio = label === 'gateway' ? `${(viaGateway.p50 / direct.p50).toFixed(2)}x` : '';
      console.log(
        `${request.name.padEnd(28)} ${label.padEnd(8)} ${fmt(figures.p50)} ${fmt(figures.p95)} ${fmt(figures.p99)}   ${ratio}`,
      );
    }
  }

  if (BASELINE) {
    console.log(
      `This checkout and ${BASELINE}, handlers called directly, alternating request by request (ms)`,
    );
    console.log(
      'operation                    checkout     p50     p95     p99   this/baseline p50',
    );
    for (const { name, direct, baseline } of requests) {
      if (!baseline) continue;
      const [mine, theirs] = await samplePair(direct, baseline);
      console.log(`${name.padEnd(28)} this     ${fmt(mine.p50)} ${fmt(mine.p95)} ${fmt(mine.p99)}`);
      console.log(
        `${''.padEnd(28)} baseline ${fmt(theirs.p50)} ${fmt(theirs.p95)} ${fmt(theirs.p99)}   ${(mine.p50 / theirs.p50).toFixed(2)}x`,
      );
    }
  }

  const perSecond = await throughput(CONCURRENCY, CONCURRENT_REQUESTS, async () => {
    const response = await fetch(`${gateway.url}/pets`, { method: 'POST', headers, body });
    await response.arrayBuffer();
  });
  console.log(
    `createPet, ${CONCURRENCY} in flight: ${CONCURRENT_REQUESTS} requests, ${perSecond.toFixed(0)} req/s`,
  );
  const memory = process.memoryUsage();
  console.log(
    `memory: rss ${(memory.rss / 2 ** 20).toFixed(0)} MiB, heap used ${(memory.heapUsed / 2 ** 20).toFixed(0)} MiB`,
  );
  // Costs last: metering asks DynamoDB for consumed capacity on every call from here on.
  const totals = meterEveryDocumentClient();
  console.log('DynamoDB per request, the rate limiter included (handler called directly):');
  for (const request of requests) {
    const before = { ...totals };
    for (let i = 0; i < COST_SAMPLES; i += 1) await request.direct();
    const calls = (totals.calls - before.calls) / COST_SAMPLES;
    const units = (totals.units - before.units) / COST_SAMPLES;
    console.log(
      `${request.name.padEnd(28)} ${calls.toFixed(2)} calls  ${units.toFixed(2)} capacity units`,
    );
  }

  await gateway.close();
}

/**
 * Times `a` and `b` SAMPLES times each, alternating (which goes first alternates too) so that
 * drift affects both alike; in ms.
 */
async function samplePair(
  a: () => Promise<void>,
  b: () => Promise<void>,
): Promise<[Percentiles, Percentiles]> {
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < SAMPLES; i += 1) {
    for (const index of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const fn = index === 0 ? a : b;
      const start = performance.now();
      await fn();
      times[index]?.push(performance.now() - start);
    }
  }
  return [percentiles(times[0]), percentiles(times[1])];
}
