/**
 * `npm run bench` (second part): the per-key rate limiter's DynamoDB calls, write capacity units
 * and added latency per request, on DynamoDB Local (what it measures: docs/measurements.md).
 */
import { performance } from 'node:perf_hooks';
import { createTables } from '../infra/local/create-tables.ts';
import { startDynamoDBLocal } from '../infra/local/dynamodb-local.ts';
import { createLambdaContext, createProxyEvent } from '../infra/local/events.ts';
import { freePort } from '../infra/local/ports.ts';
import { credentialsEnv, generateCredentials } from '../infra/local/stack-files.ts';
import { createDocumentClient } from '../shared/dynamodb/clients.ts';
import { DynamoDBRateLimiter } from '../shared/dynamodb/dynamodb-rate-limiter.ts';
import { COUNTERS_TABLE } from '../shared/dynamodb/tables.ts';
import { httpHandler } from '../shared/http/handler.ts';
import { jsonResponse } from '../shared/http/responses.ts';
import { MAX_PER_DAY, MAX_PER_MINUTE, type RequestLimits } from '../shared/plans.ts';
import {
  admittedDecision,
  instantAt,
  NO_COUNTS,
  type RateLimitDecision,
} from '../shared/rate-limit/decision.ts';
import { DEFAULT_SPREAD_POLICY } from '../shared/rate-limit/shards.ts';
import { readSettings } from '../shared/settings.ts';
import { meter } from './meter.ts';
import { formatMs, type Percentiles, percentiles, throughput } from './stats.ts';

/** A limiter that admits every request without I/O: the baseline the DynamoDB one is timed against. */
async function admitWithoutCounting(
  _keyId: string,
  limits: RequestLimits,
  nowMs: number,
): Promise<RateLimitDecision> {
  return admittedDecision(NO_COUNTS, limits, instantAt(nowMs));
}

const WARM_UP = 200;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300) * 3;
const CONCURRENCY = 16;
const CONCURRENT_REQUESTS = 2_000;
/**
 * The highest limits a key counted on one item may have, and the highest any key may have (its
 * counts spread over shards): no loop here reaches either, so every measured request is admitted.
 */
const UNREACHED = { perMinute: DEFAULT_SPREAD_POLICY.abovePerMinute, perDay: MAX_PER_DAY };
const SPREAD = { perMinute: MAX_PER_MINUTE, perDay: MAX_PER_DAY };

// The bench's own DynamoDB Local credentials, read from the environment by every client.
Object.assign(process.env, credentialsEnv(generateCredentials()));
const dynamo = await startDynamoDBLocal({ port: await freePort() });
try {
  const setup = createDocumentClient({ endpoint: dynamo.endpoint });
  const tables = await createTables(setup);
  setup.destroy();
  const client = createDocumentClient({ endpoint: dynamo.endpoint });
  const totals = meter(client);
  const limiter = new DynamoDBRateLimiter(client, tables[COUNTERS_TABLE.envVar] ?? '');

  const now = Date.now();
  const perRequest = async (label: string, count: number, run: () => Promise<unknown>) => {
    const before = { ...totals };
    for (let i = 0; i < count; i += 1) await run();
    const calls = (totals.calls - before.calls) / count;
    const wcu = (totals.units - before.units) / count;
    console.log(`${label.padEnd(44)} ${calls.toFixed(2)} calls  ${wcu.toFixed(2)} WCU`);
  };
  console.log('Rate limiter on DynamoDB Local, per request:');
  await limiter.consume('key_admitted', UNREACHED, now);
  await perRequest('admitted, steady state', 100, () =>
    limiter.consume('key_admitted', UNREACHED, now),
  );
  let minute = 0;
  await perRequest('admitted, first request of a minute', 100, () => {
    minute += 1;
    return limiter.consume('key_admitted', UNREACHED, now + minute * 60_000);
  });
  // Enough requests first that every shard has started the minute (each shard's first costs two).
  for (let i = 0; i < 12 * DEFAULT_SPREAD_POLICY.shards; i += 1) {
    await limiter.consume('key_spread', SPREAD, now);
  }
  await perRequest('admitted, spread key, steady state', 100, () =>
    limiter.consume('key_spread', SPREAD, now),
  );
  const small = { perMinute: 1, perDay: 1_000 };
  await limiter.consume('key_refused', small, now);
  await perRequest('refused by the minute window', 40, () =>
    limiter.consume('key_refused', small, now),
  );
  const banned = { perMinute: 1, perDay: 1_000 };
  for (let i = 0; i < 60; i += 1) await limiter.consume('key_banned', banned, now);
  await perRequest('refused during a ban', 40, () => limiter.consume('key_banned', banned, now));

  // The same trivial operation behind the DynamoDB limiter and behind one that admits without
  // any I/O, timed alternately: the difference is what the limiter adds to a request.
  const operation = async () => jsonResponse(200, []);
  const settings = readSettings();
  const limited = httpHandler({ container: { settings, rateLimiter: limiter }, operation });
  const unlimited = httpHandler({
    container: { settings, rateLimiter: { consume: admitWithoutCounting } },
    operation,
  });
  const event = createProxyEvent({
    method: 'GET',
    resource: '/pets',
    path: '/pets',
    authorizer: { keyId: 'key_latency', plan: 'enterprise', ...UNREACHED },
  });
  const context = createLambdaContext('bench');
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < WARM_UP + SAMPLES; i += 1) {
    for (const [index, handler] of [limited, unlimited].entries()) {
      const start = performance.now();
      await handler(event, context);
      if (i >= WARM_UP) times[index]?.push(performance.now() - start);
    }
  }
  const [withLimiter, withoutLimiter] = times.map(percentiles);
  const row = (label: string, p: Percentiles | undefined) =>
    console.log(
      `${label.padEnd(44)} p50 ${formatMs(p?.p50 ?? 0)}  p95 ${formatMs(p?.p95 ?? 0)}  p99 ${formatMs(p?.p99 ?? 0)}`,
    );
  console.log(`An operation's handler, ${SAMPLES} sequential requests each, alternating (ms):`);
  row('with the DynamoDB limiter', withLimiter);
  row('with a limiter that does no I/O', withoutLimiter);
  console.log(
    `the limiter adds (p50 difference):           ${formatMs((withLimiter?.p50 ?? 0) - (withoutLimiter?.p50 ?? 0))} ms`,
  );

  for (const [label, limits] of [
    ['one item', UNREACHED],
    ['spread key', SPREAD],
  ] as const) {
    const perSecond = await throughput(CONCURRENCY, CONCURRENT_REQUESTS, () =>
      limiter.consume(`key_concurrent_${label}`, limits, Date.now()),
    );
    console.log(
      `consume, ${label}, ${CONCURRENCY} in flight: ${CONCURRENT_REQUESTS} requests, ${perSecond.toFixed(0)} req/s`,
    );
  }
  client.destroy();
} finally {
  await dynamo.stop();
}
