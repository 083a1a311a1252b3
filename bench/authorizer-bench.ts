/**
 * `npm run bench` (part): the authorizer's verification as the local gateway runs it: p50/p99 of a
 * cache hit and of misses, then the keys-table reads of 10,000 random tokens (docs/measurements.md).
 */
import { performance } from 'node:perf_hooks';
import { AuthorizerCache } from '../infra/local/authorizer-cache.ts';
import type { ProxyRequest } from '../infra/local/events.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../infra/routes.ts';
import { KEYS_TABLE } from '../shared/dynamodb/tables.ts';
import { generateToken, TOKEN_PREFIXES } from '../shared/keys/token.ts';
import { benchKey, withLocalStack } from './bench-setup.ts';
import { meterEveryDocumentClient } from './meter.ts';
import { formatMs as fmt, percentiles } from './stats.ts';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const WARM_UP = 30;
const RANDOM_TOKENS = 10_000;
/** Well-formed unknown tokens, each a read: what every random token cost before the checksum. */
const WELL_FORMED_TOKENS = 1_000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

await withLocalStack(run);

async function run(): Promise<void> {
  // Imported once withLocalStack has silenced the logs (the module's logger reads the level).
  const { LambdaInvoker } = await import('../infra/local/invocation.ts');
  const invoker = await LambdaInvoker.create();
  const cache = new AuthorizerCache(AUTHORIZER_CACHE_TTL_SECONDS, Date.now);
  const { token } = await benchKey({ plan: 'business', owner: 'bench' });
  const verify = (value: string) => invoker.invokeAuthorizer(request(value));
  const cases: [string, () => Promise<unknown>][] = [
    ['cache hit (valid key)', () => cache.authorize(`Bearer ${token}`, () => verify(token))],
    ['miss, valid key (1 GetItem)', () => verify(token)],
    ['miss, unknown token (1 GetItem)', () => verify(generateToken())],
    ['malformed token (no read)', () => verify(randomToken())],
  ];
  for (const [, verification] of cases) {
    for (let i = 0; i < WARM_UP; i++) await verification();
  }
  console.log(
    `Authorizer verification on the local stack: ${SAMPLES} sequential verifications per row, after ${WARM_UP} warm-up (ms)`,
  );
  console.log('case                                 p50     p95     p99');
  for (const [name, verification] of cases) {
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const start = performance.now();
      await verification();
      times.push(performance.now() - start);
    }
    const { p50, p95, p99 } = percentiles(times);
    console.log(`${name.padEnd(32)} ${fmt(p50)} ${fmt(p95)} ${fmt(p99)}`);
  }

  const totals = meterEveryDocumentClient();
  const keysTable = process.env[KEYS_TABLE.envVar] ?? '';
  const readsOf = async (count: number, next: () => string) => {
    const before = totals.tables[keysTable] ?? 0;
    let refused = 0;
    for (let i = 0; i < count; i++) {
      if ('refusal' in (await verify(next()))) refused++;
    }
    return { refused, reads: (totals.tables[keysTable] ?? 0) - before };
  };
  const random = await readsOf(RANDOM_TOKENS, randomToken);
  const wellFormed = await readsOf(WELL_FORMED_TOKENS, () => generateToken());
  console.log('Keys-table reads (GetItem) of tokens the keys table does not hold:');
  console.log(
    `  ${RANDOM_TOKENS} random tokens (${TOKEN_PREFIXES.local} + 38 random base62): ${random.refused} refused, ${random.reads} reads`,
  );
  console.log(
    `  ${WELL_FORMED_TOKENS} well-formed unknown tokens: ${wellFormed.refused} refused, ${wellFormed.reads} reads (${(wellFormed.reads / WELL_FORMED_TOKENS).toFixed(2)} per token, as every token cost before)`,
  );
}

/** The headers-only request the gateway hands the authorizer, with this bearer token. */
function request(token: string): ProxyRequest {
  return {
    method: 'GET',
    resource: '/pets',
    path: '/pets',
    headers: { authorization: `Bearer ${token}` },
  };
}

/** The local prefix and 38 random base62 characters: a checksum that holds 1 time in 2^32. */
function randomToken(): string {
  let body = '';
  for (let i = 0; i < 38; i++) body += BASE62[Math.floor(Math.random() * 62)];
  return `${TOKEN_PREFIXES.local}${body}`;
}
