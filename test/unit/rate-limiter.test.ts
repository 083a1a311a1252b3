import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentClient, requireEnv } from '../../shared/clients.ts';
import { PLANS } from '../../shared/plans.ts';
import {
  type BanPolicy,
  counterName,
  DEFAULT_BAN_POLICY,
  DynamoDBRateLimiter,
  type RateLimitDecision,
} from '../../shared/rate-limit/limiter.ts';
import { secondsUntil, windowAt } from '../../shared/rate-limit/windows.ts';
import { COUNTERS_TABLE } from '../../shared/tables.ts';
import { DAY_AFTER_TOMORROW, tomorrowAt, utcInstant } from '../support/clock.ts';

const client = createDocumentClient();
const tableName = requireEnv(COUNTERS_TABLE.envVar);
afterAll(() => client.destroy());

const FREE = PLANS.free;
/** 10:30:00 UTC tomorrow, the first second of a minute: its counter items expire in the future. */
const T0 = tomorrowAt('10:30:00');
/** 00:00 UTC after tomorrow, where the day windows of these tests reset. */
const MIDNIGHT = utcInstant(DAY_AFTER_TOMORROW, '00:00:00');
const SECOND = 1000;
const MINUTE = 60 * SECOND;

let keySequence = 0;
/** A key id no other test uses, so that each test starts with empty windows. */
function freshKey(): string {
  keySequence += 1;
  return `key_test${keySequence}_${Math.random().toString(16).slice(2, 10)}`;
}

function limiter(banPolicy: BanPolicy = DEFAULT_BAN_POLICY) {
  return new DynamoDBRateLimiter(client, tableName, banPolicy);
}

/** Sends `count` requests one after another at `nowMs`; returns the decisions. */
async function sendSequentially(
  rl: DynamoDBRateLimiter,
  keyId: string,
  limits: { perMinute: number; perDay: number },
  count: number,
  nowMs: number,
): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < count; i += 1) decisions.push(await rl.consume(keyId, limits, nowMs));
  return decisions;
}

const admittedCount = (decisions: RateLimitDecision[]) =>
  decisions.filter((d) => d.admitted).length;

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

  it('throws the client error when the counters table cannot be reached', async () => {
    const broken = new DynamoDBRateLimiter(client, 'no-such-table');
    await expect(broken.consume(freshKey(), FREE, T0)).rejects.toThrow(/non-existent table/i);
  });
});

describe('temporary ban', () => {
  const policy: BanPolicy = { threshold: 3, durationSeconds: 900 };
  const limits = { perMinute: 2, perDay: 100 };

  /** Uses up the minute, then sends `rejected` more requests, all at `nowMs`. */
  async function exhaust(rl: DynamoDBRateLimiter, keyId: string, rejected: number, nowMs: number) {
    return (await sendSequentially(rl, keyId, limits, 2 + rejected, nowMs)).slice(2);
  }

  it('bans a key after more than the threshold of refused requests in one minute', async () => {
    const rl = limiter(policy);
    const keyId = freshKey();
    const refused = await exhaust(rl, keyId, 4, T0 + 10 * SECOND);
    expect(refused.map((d) => d.bannedUntil)).toEqual([
      undefined,
      undefined,
      undefined,
      T0 / 1000 + 10 + 900,
    ]);
    expect(await rl.banState(keyId, T0 + 11 * SECOND)).toEqual({ bannedUntil: T0 / 1000 + 910 });
  });

  it('does not ban at exactly the threshold', async () => {
    const rl = limiter(policy);
    const keyId = freshKey();
    await exhaust(rl, keyId, 3, T0);
    expect(await rl.banState(keyId, T0 + SECOND)).toBeUndefined();
    expect((await rl.consume(keyId, limits, T0 + MINUTE)).admitted).toBe(true);
  });

  it('refuses every request while banned, in later minutes too, without counting them', async () => {
    const rl = limiter(policy);
    const keyId = freshKey();
    await exhaust(rl, keyId, 4, T0);
    const banEnd = T0 / 1000 + 900;

    const laterMinute = await rl.consume(keyId, limits, T0 + 5 * MINUTE);
    expect(laterMinute.admitted).toBe(false);
    expect(laterMinute.bannedUntil).toBe(banEnd);
    expect(laterMinute.binding).toMatchObject({ name: 'minute', remaining: 0, resetAt: banEnd });

    const afterBan = await rl.consume(keyId, limits, banEnd * 1000);
    expect(afterBan.admitted).toBe(true);
    expect(afterBan.bannedUntil).toBeUndefined();
    // 2 admitted before the ban, this one: banned requests were not counted.
    expect(afterBan.day.remaining).toBe(100 - 3);
    expect(afterBan.minute.remaining).toBe(1);
  });

  it('keeps a ban that runs past midnight UTC in force on the next day', async () => {
    const rl = limiter(policy);
    const keyId = freshKey();
    const beforeMidnight = tomorrowAt('23:55:00');
    await exhaust(rl, keyId, 4, beforeMidnight);
    const nextDay = await rl.consume(keyId, limits, utcInstant(DAY_AFTER_TOMORROW, '00:05:00'));
    expect(nextDay.admitted).toBe(false);
    expect(nextDay.bannedUntil).toBe(beforeMidnight / 1000 + 900);
    expect((await rl.consume(keyId, limits, beforeMidnight + 900 * SECOND)).admitted).toBe(true);
  });

  it('unban lifts the ban at once and lets the key start afresh', async () => {
    const rl = limiter(policy);
    const keyId = freshKey();
    await exhaust(rl, keyId, 4, T0);

    expect(await rl.unban(keyId, T0 + SECOND)).toEqual({ bannedUntil: T0 / 1000 + 900 });
    expect(await rl.banState(keyId, T0 + SECOND)).toBeUndefined();
    // Same minute: still over the minute limit, so refused, but not banned again at once.
    const refused = await rl.consume(keyId, limits, T0 + 2 * SECOND);
    expect(refused).toMatchObject({ admitted: false, bannedUntil: undefined });
    expect((await rl.consume(keyId, limits, T0 + MINUTE)).admitted).toBe(true);
  });

  it('unban of a key that is not banned reports nothing lifted', async () => {
    expect(await limiter(policy).unban(freshKey(), T0)).toBeUndefined();
  });
});

describe('counterName', () => {
  it('names the minute and the day of a key in UTC', () => {
    const at = Date.parse('2026-11-21T10:30:59.999Z');
    expect(counterName('key_1', windowAt('minute', at))).toBe('rate#key_1#minute#2026-11-21T10:30');
    expect(counterName('key_1', windowAt('day', at))).toBe('rate#key_1#day#2026-11-21');
  });
});

describe('windowAt and secondsUntil', () => {
  it('aligns the day to 00:00 UTC and the minute to its first second', () => {
    const at = Date.parse('2026-11-21T23:59:59.500Z');
    expect(windowAt('day', at)).toEqual({
      name: 'day',
      start: Date.parse('2026-11-21T00:00:00Z') / 1000,
      resetAt: Date.parse('2026-11-22T00:00:00Z') / 1000,
    });
    expect(windowAt('minute', at).resetAt).toBe(Date.parse('2026-11-22T00:00:00Z') / 1000);
  });

  it('rounds a wait up to whole seconds, never below its floor', () => {
    expect(secondsUntil(100, 98_200, 1)).toBe(2);
    expect(secondsUntil(100, 99_999, 1)).toBe(1);
    expect(secondsUntil(100, 100_000, 1)).toBe(1);
    expect(secondsUntil(100, 100_000, 0)).toBe(0);
  });
});
