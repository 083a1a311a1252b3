/**
 * A key whose counts spread over shard items (docs/rate-limits.md, "Keys past one partition") on
 * DynamoDB Local: never over its limits with many clients and limiter instances, nearly all of
 * them admitted, one write per admitted request on a shard, and its usage, bans and 429 answers.
 * Small thresholds stand in for the defaults so that a limit is reached in a few hundred requests.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/key-usage.ts';
import { counterName } from '../../shared/rate-limit/counter-item.ts';
import type { RateLimitDecision } from '../../shared/rate-limit/decision.ts';
import type { BanPolicy } from '../../shared/rate-limit/rate-limiter.ts';
import { type SpreadPolicy, shardLimits, shardNames } from '../../shared/rate-limit/shards.ts';
import { windowAt } from '../../shared/rate-limit/windows.ts';
import {
  countingOperation,
  getEvent,
  invocationContext,
} from '../support/rate-limit-middleware.ts';
import {
  admittedCount,
  audit,
  client,
  freshKey,
  MINUTE,
  SECOND,
  sendSequentially,
  T0,
  tableName,
} from '../support/rate-limiter-fixtures.ts';
import { TEST_CONTEXT } from '../support/test-keys.ts';

const SPREAD: SpreadPolicy = { abovePerMinute: 100, shards: 8 };
const BAN: BanPolicy = { threshold: 3, durationSeconds: 900 };
const LIMITS = { perMinute: 160, perDay: 1_000 };

const instance = (dynamo = client) => new DynamoDBRateLimiter(dynamo, tableName, BAN, SPREAD);

/** Each item's `dayCount` by name (absent items left out; `NaN` for an item without one). */
async function dayCounts(names: string[]): Promise<Map<string, number>> {
  const { Responses } = await client.send(
    new BatchGetCommand({
      RequestItems: { [tableName]: { Keys: names.map((name) => ({ name })) } },
    }),
  );
  return new Map((Responses?.[tableName] ?? []).map((item) => [item.name, Number(item.dayCount)]));
}

describe('a spread key on DynamoDB', () => {
  it('admits at most its limit and at least 95 % of it to 32 concurrent clients over 4 limiter instances in one minute', async () => {
    const limiters = Array.from({ length: 4 }, () => instance());
    const keyId = freshKey();
    // 32 clients, each sending one request after another through the instance it lands on,
    // 7 each (1.4 × the limit in all), spread over the minute's 60 s of simulated time.
    const perClient = 7;
    const clients = Array.from({ length: 32 }, async (_, c) => {
      const decisions: RateLimitDecision[] = [];
      for (let i = 0; i < perClient; i++) {
        const nowMs = T0 + Math.floor(((i * 32 + c) / (perClient * 32)) * 59 * SECOND);
        const limiter = limiters[(c + i) % limiters.length] as DynamoDBRateLimiter;
        decisions.push(await limiter.consume(keyId, LIMITS, nowMs));
      }
      return decisions;
    });

    const admitted = admittedCount((await Promise.all(clients)).flat());

    expect(admitted).toBeLessThanOrEqual(LIMITS.perMinute);
    expect(admitted).toBeGreaterThanOrEqual(0.95 * LIMITS.perMinute);
    const day = windowAt('day', T0);
    const counts = await dayCounts([counterName(keyId, day), ...shardNames(keyId, day, 8)]);
    // The day item holds only the refusals (and the ban they started), no admitted count.
    expect(counts.get(counterName(keyId, day))).toBeNaN();
    counts.delete(counterName(keyId, day));
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(admitted);
    for (const [shard, name] of shardNames(keyId, day, 8).entries()) {
      expect(counts.get(name)).toBeLessThanOrEqual(shardLimits(LIMITS, shard, 8).perMinute);
    }
  });

  it('makes one write per admitted request, on a shard, two for the first on its shard in a minute', async () => {
    const metered = createDocumentClient();
    const writes: string[] = [];
    metered.middlewareStack.add(
      (next) => (args) => {
        writes.push(String((args.input as { Key?: { name?: string } }).Key?.name));
        return next(args);
      },
      { step: 'initialize' },
    );
    const keyId = freshKey();
    // Shard quotas of 100 a minute: no shard can refuse, whose retry on another shard would add a
    // write (with 20 a shard, one of 100 random picks past 20 happened now and then).
    const roomy = { perMinute: 800, perDay: 10_000 };
    try {
      await sendSequentially(instance(metered), keyId, roomy, 100, T0);
    } finally {
      metered.destroy();
    }
    const shards = new Set(writes);
    expect(shards.size).toBe(8);
    expect(shards.has(counterName(keyId, windowAt('day', T0)))).toBe(false);
    expect(writes.length).toBe(100 + shards.size);
  });

  it('starts afresh in the next minute of the requests’ clock after every shard refused', async () => {
    const limiter = instance();
    const keyId = freshKey();
    await sendSequentially(limiter, keyId, LIMITS, 161, T0 + 30 * SECOND);

    const next = await limiter.consume(keyId, LIMITS, T0 + MINUTE);

    expect(next.admitted).toBe(true);
  });

  it('counts usage as the sum of its shards, and its refusals', async () => {
    const keyId = freshKey();
    await sendSequentially(instance(), keyId, LIMITS, 163, T0);
    const usage = new DynamoDBKeyUsage(client, tableName, 8);

    const daily = await usage.dailyUsage([keyId], 1, T0, new Set([keyId]));

    expect(daily.get(keyId)).toEqual([
      { day: new Date(T0).toISOString().slice(0, 10), admitted: 160, refused: 3 },
    ]);
  });

  it('answers 429 rate_limited with Retry-After and no request left, then bans the key after the threshold', async () => {
    const { handler, calls } = countingOperation(instance());
    const k = { keyId: freshKey(), plan: 'enterprise', ...LIMITS };
    for (let i = 0; i < LIMITS.perMinute; i++) await handler(getEvent(k), invocationContext());

    const refused = await Promise.all(
      [0, 1, 2, 3].map(() => handler(getEvent(k), invocationContext())),
    );
    const banned = await handler(getEvent(k), invocationContext());

    expect(calls.count).toBe(LIMITS.perMinute);
    expect(refused.map((r) => [r.statusCode, JSON.parse(r.body).code])).toContainEqual([
      429,
      'rate_limited',
    ]);
    const first = refused.find((r) => JSON.parse(r.body).code === 'rate_limited');
    expect(first?.headers).toMatchObject({
      'X-RateLimit-Limit': '160',
      'X-RateLimit-Remaining': '0',
      'Retry-After': '45',
    });
    expect(banned.statusCode).toBe(429);
    expect(JSON.parse(banned.body).code).toBe('api_key_temporarily_banned');
    expect(banned.headers?.['Retry-After']).toBe('900');
  });

  it('shows its ban to the keys command, and unban lifts it from the day item and every shard', async () => {
    const keyId = freshKey();
    await sendSequentially(instance(), keyId, LIMITS, 164, T0);
    const bans = new DynamoDBRateLimitBans(client, tableName, audit, 8);
    expect(await bans.banState(keyId, T0 + MINUTE)).toEqual({ bannedUntil: T0 / 1000 + 900 });
    // A fresh instance learns the ban from the shard it writes to, and binds the ban.
    expect(await instance().consume(keyId, LIMITS, T0 + MINUTE)).toMatchObject({
      admitted: false,
      bannedUntil: T0 / 1000 + 900,
      binding: { name: 'minute', remaining: 0, resetAt: T0 / 1000 + 900 },
    });

    await bans.unban(keyId, T0 + MINUTE, TEST_CONTEXT);

    const after = await sendSequentially(instance(), keyId, LIMITS, 8, T0 + MINUTE);
    expect(after.every((d) => d.admitted)).toBe(true);
  });
});
