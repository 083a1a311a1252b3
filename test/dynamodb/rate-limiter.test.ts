/**
 * The rate limiter's storage on DynamoDB Local (shared/dynamodb/dynamodb-rate-limiter.ts and
 * bans.ts): exact counting across windows and concurrent requests, the writes each request costs,
 * the item it keeps, and the temporary ban. The decision alone is tested in
 * rate-limit-decision.test.ts.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { PLANS } from '../../shared/plans.ts';
import { counterName } from '../../shared/rate-limit/counter-item.ts';
import type { BanPolicy } from '../../shared/rate-limit/rate-limiter.ts';
import { windowAt } from '../../shared/rate-limit/windows.ts';
import { StoreUnavailableError } from '../../shared/store-errors.ts';
import { tomorrowAt } from '../support/clock.ts';

import {
  admittedCount,
  client,
  FREE,
  freshKey,
  limiter,
  MIDNIGHT,
  MINUTE,
  SECOND,
  sendSequentially,
  T0,
  tableName,
} from '../support/rate-limiter-fixtures.ts';

describe('DynamoDBRateLimiter.consume', () => {
  it('admits exactly the per-minute limit in one minute, counting the remainder down', async () => {
    const rl = limiter();
    const keyId = freshKey();
    const decisions = await sendSequentially(rl, keyId, FREE, 61, T0 + 5 * SECOND);
    expect(admittedCount(decisions)).toBe(60);
    expect(decisions[0]?.binding).toMatchObject({ name: 'minute', limit: 60, remaining: 59 });
    expect(decisions[59]?.binding).toMatchObject({ name: 'minute', remaining: 0 });
    const refused = decisions[60];
    expect(refused?.admitted).toBe(false);
    expect(refused?.binding).toMatchObject({
      name: 'minute',
      limit: 60,
      remaining: 0,
      resetAt: T0 / 1000 + 60,
    });
    expect(refused?.bannedUntil).toBeUndefined();
  });

  it('starts a new count when the UTC minute rolls over, while the day keeps counting', async () => {
    const rl = limiter();
    const keyId = freshKey();
    await sendSequentially(rl, keyId, FREE, 60, T0 + 59 * SECOND);
    expect((await rl.consume(keyId, FREE, T0 + 59 * SECOND + 999)).admitted).toBe(false);

    const next = await rl.consume(keyId, FREE, T0 + MINUTE);
    expect(next.admitted).toBe(true);
    expect(next.minute).toMatchObject({ remaining: 59, resetAt: T0 / 1000 + 120 });
    expect(next.day).toMatchObject({ limit: 1000, remaining: 1000 - 61 });
  });

  it('binds to the day window once the day has fewer requests left than the minute', async () => {
    const rl = limiter();
    const keyId = freshKey();
    const limits = { perMinute: 10, perDay: 12 };
    const first = await sendSequentially(rl, keyId, limits, 8, T0);
    expect(first.map((d) => d.binding.name)).toEqual([
      'minute',
      'minute',
      'minute',
      'minute',
      'minute',
      'minute',
      'minute',
      'minute',
    ]);
    const [ninth] = await sendSequentially(rl, keyId, limits, 1, T0 + MINUTE);
    // minute: 9 left, day: 3 left
    expect(ninth?.binding).toMatchObject({ name: 'day', limit: 12, remaining: 3 });
    expect(ninth?.binding.resetAt).toBe(MIDNIGHT / 1000);
  });

  it('refuses on the day window until 00:00 UTC, then admits again', async () => {
    const rl = limiter();
    const keyId = freshKey();
    const limits = { perMinute: 5, perDay: 5 };
    const lateEvening = tomorrowAt('23:59:30');
    await sendSequentially(rl, keyId, limits, 5, tomorrowAt('08:00:00'));

    const refused = await rl.consume(keyId, limits, lateEvening);
    expect(refused.admitted).toBe(false);
    expect(refused.binding).toMatchObject({ name: 'day', remaining: 0 });
    expect(refused.binding.resetAt).toBe(MIDNIGHT / 1000);
    // The minute it was refused in has no count from it.
    expect(refused.minute.remaining).toBe(5);

    const nextDay = await rl.consume(keyId, limits, MIDNIGHT);
    expect(nextDay.admitted).toBe(true);
    expect(nextDay.day).toMatchObject({ remaining: 4 });
  });

  it('does not count a request refused by the minute window against the day', async () => {
    const rl = limiter();
    const keyId = freshKey();
    await sendSequentially(rl, keyId, FREE, 70, T0);
    const later = await rl.consume(keyId, FREE, T0 + MINUTE);
    expect(later.day.remaining).toBe(1000 - 61);
  });

  it('applies new limits to the counts already made when a key changes plan mid-window', async () => {
    const rl = limiter();
    const keyId = freshKey();
    await sendSequentially(rl, keyId, FREE, 60, T0);
    expect((await rl.consume(keyId, FREE, T0 + SECOND)).admitted).toBe(false);

    const pro = await rl.consume(keyId, PLANS.pro, T0 + 2 * SECOND);
    expect(pro.admitted).toBe(true);
    expect(pro.binding).toMatchObject({ limit: 300, remaining: 239 });

    // Back down to Free within the same minute: 61 admitted already, so refused.
    const down = await rl.consume(keyId, FREE, T0 + 3 * SECOND);
    expect(down.admitted).toBe(false);
    expect(down.binding).toMatchObject({ limit: 60, remaining: 0 });
  });

  it('enforces custom Enterprise limits', async () => {
    const rl = limiter();
    const keyId = freshKey();
    const enterprise = { perMinute: 3, perDay: 1_000_000 };
    const decisions = await sendSequentially(rl, keyId, enterprise, 4, T0);
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, true, false]);
    expect(decisions[0]?.day).toMatchObject({ limit: 1_000_000, remaining: 999_999 });
  });

  it('admits exactly 60 of 90 concurrent requests of a fresh Free key', async () => {
    const rl = limiter();
    const keyId = freshKey();
    const decisions = await Promise.all(
      Array.from({ length: 90 }, () => rl.consume(keyId, FREE, T0 + 10 * SECOND)),
    );
    expect(admittedCount(decisions)).toBe(60);
    const remaining = decisions.filter((d) => d.admitted).map((d) => d.binding.remaining);
    expect(new Set(remaining).size).toBe(60);
    expect(Math.min(...remaining)).toBe(0);
    const after = await rl.consume(keyId, FREE, T0 + MINUTE);
    expect(after.day.remaining).toBe(1000 - 61);
  });

  it('admits exactly 60 of 90 requests sent at once on the first second of a new minute', async () => {
    const rl = limiter();
    const keyId = freshKey();
    await sendSequentially(rl, keyId, FREE, 10, T0);
    // All 90 find the earlier minute stored; one starts the new minute, the others count in it.
    const decisions = await Promise.all(
      Array.from({ length: 90 }, () => rl.consume(keyId, FREE, T0 + MINUTE)),
    );
    expect(admittedCount(decisions)).toBe(60);
    expect(new Set(decisions.map((d) => d.minute.remaining)).size).toBe(60);
    const after = await rl.consume(keyId, FREE, T0 + 2 * MINUTE);
    expect(after.day.remaining).toBe(1000 - 71);
  });

  it('counts a request whose clock lags in the later minute another request started', async () => {
    const rl = limiter();
    const keyId = freshKey();
    const limits = { perMinute: 2, perDay: 100 };
    await rl.consume(keyId, limits, T0 + MINUTE);
    const lagging = await rl.consume(keyId, limits, T0 + 59 * SECOND);
    expect(lagging).toMatchObject({ admitted: true, minute: { remaining: 0 } });
    expect((await rl.consume(keyId, limits, T0 + MINUTE + SECOND)).admitted).toBe(false);
  });

  it("keeps one item per key and UTC day, with both windows' counts and a TTL", async () => {
    const rl = limiter();
    const keyId = freshKey();
    await sendSequentially(rl, keyId, FREE, 3, T0);
    await sendSequentially(rl, keyId, FREE, 2, T0 + MINUTE + 5 * SECOND);
    const day = windowAt('day', T0);
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: { name: counterName(keyId, day) } }),
    );
    expect(Item).toEqual({
      name: `rate#${keyId}#${new Date(T0).toISOString().slice(0, 10)}`,
      dayCount: 5,
      minuteStart: T0 / 1000 + 60,
      minuteCount: 2,
      rejected: 0,
      // Kept 35 days after the day, for `npm run keys -- usage`.
      expiresAt: MIDNIGHT / 1000 + 35 * 86_400,
    });
  });

  it("counts the day's refused requests across minutes, in the writes a refusal makes anyway", async () => {
    const rl = limiter();
    const keyId = freshKey();
    const limits = { perMinute: 2, perDay: 1_000 };
    await sendSequentially(rl, keyId, limits, 5, T0);
    await sendSequentially(rl, keyId, limits, 4, T0 + MINUTE);
    const { Item } = await client.send(
      new GetCommand({
        TableName: tableName,
        Key: { name: counterName(keyId, windowAt('day', T0)) },
      }),
    );
    expect(Item).toMatchObject({ dayCount: 4, rejected: 2, dayRejected: 5 });
  });

  it('throws StoreUnavailableError, the client error as its cause, when the counters table cannot be reached', async () => {
    const broken = new DynamoDBRateLimiter(client, 'no-such-table');
    const error = await broken.consume(freshKey(), FREE, T0).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).cause).toMatchObject({
      message: expect.stringMatching(/non-existent table/i),
    });
  });
});

describe('DynamoDB calls per request', () => {
  /** A limiter whose every DynamoDB call is counted in `calls.count`. */
  function meteredLimiter(banPolicy?: BanPolicy) {
    const metered = createDocumentClient();
    const calls = { count: 0 };
    metered.middlewareStack.add(
      (next) => (args) => {
        calls.count += 1;
        return next(args);
      },
      { step: 'initialize' },
    );
    return { rl: new DynamoDBRateLimiter(metered, tableName, banPolicy), calls, metered };
  }

  /** The calls `consume` makes for one request of `keyId` at `nowMs`. */
  async function callsOf(
    metered: ReturnType<typeof meteredLimiter>,
    keyId: string,
    limits: { perMinute: number; perDay: number },
    nowMs: number,
  ): Promise<number> {
    const before = metered.calls.count;
    await metered.rl.consume(keyId, limits, nowMs);
    return metered.calls.count - before;
  }

  it('makes one write per admitted request, two for the first of a minute', async () => {
    const metered = meteredLimiter();
    const keyId = freshKey();
    try {
      expect(await callsOf(metered, keyId, FREE, T0)).toBe(2);
      expect(await callsOf(metered, keyId, FREE, T0 + SECOND)).toBe(1);
      expect(await callsOf(metered, keyId, FREE, T0 + 2 * SECOND)).toBe(1);
      expect(await callsOf(metered, keyId, FREE, T0 + MINUTE)).toBe(2);
      expect(await callsOf(metered, keyId, FREE, T0 + MINUTE + SECOND)).toBe(1);
    } finally {
      metered.metered.destroy();
    }
  });

  it('makes two writes per refused request, one while banned', async () => {
    const metered = meteredLimiter({ threshold: 1, durationSeconds: 900 });
    const keyId = freshKey();
    const limits = { perMinute: 1, perDay: 100 };
    try {
      await metered.rl.consume(keyId, limits, T0);
      expect(await callsOf(metered, keyId, limits, T0)).toBe(2);
      // The second refusal passes the threshold of 1 and writes the ban.
      expect(await callsOf(metered, keyId, limits, T0)).toBe(3);
      expect(await callsOf(metered, keyId, limits, T0 + MINUTE)).toBe(1);
    } finally {
      metered.metered.destroy();
    }
  });
});
