/**
 * The temporary ban on DynamoDB Local (docs/rate-limits.md, "Temporary ban"): more than the
 * threshold of refused requests in one UTC minute bans a key, the ban holds across minutes and
 * midnight, and `DynamoDBRateLimitBans.unban` lifts it.
 */
import { describe, expect, it } from 'vitest';
import type { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import type { BanPolicy } from '../../shared/rate-limit/rate-limiter.ts';
import { DAY_AFTER_TOMORROW, tomorrowAt, utcInstant } from '../support/clock.ts';
import {
  bans,
  freshKey,
  limiter,
  MINUTE,
  SECOND,
  sendSequentially,
  T0,
} from '../support/rate-limiter-fixtures.ts';
import { TEST_CONTEXT } from '../support/test-keys.ts';

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
    expect(await bans.banState(keyId, T0 + 11 * SECOND)).toEqual({ bannedUntil: T0 / 1000 + 910 });
  });

  it('does not ban at exactly the threshold', async () => {
    const rl = limiter(policy);
    const keyId = freshKey();
    await exhaust(rl, keyId, 3, T0);
    expect(await bans.banState(keyId, T0 + SECOND)).toBeUndefined();
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

  it('counts refusals by the day window in later minutes towards the ban', async () => {
    const rl = limiter(policy);
    const keyId = freshKey();
    const tight = { perMinute: 2, perDay: 2 };
    await sendSequentially(rl, keyId, tight, 2, T0);
    const refused = await sendSequentially(rl, keyId, tight, 4, T0 + 5 * MINUTE);
    expect(refused.map((d) => [d.admitted, d.binding.name])).toEqual([
      [false, 'day'],
      [false, 'day'],
      [false, 'day'],
      [false, 'day'],
    ]);
    expect(refused[3]?.bannedUntil).toBe(T0 / 1000 + 300 + 900);
  });

  it('unban lifts the ban at once and lets the key start afresh', async () => {
    const rl = limiter(policy);
    const keyId = freshKey();
    await exhaust(rl, keyId, 4, T0);

    expect(await bans.unban(keyId, T0 + SECOND, TEST_CONTEXT)).toEqual({
      bannedUntil: T0 / 1000 + 900,
    });
    expect(await bans.banState(keyId, T0 + SECOND)).toBeUndefined();
    // Same minute: still over the minute limit, so refused, but not banned again at once.
    const refused = await rl.consume(keyId, limits, T0 + 2 * SECOND);
    expect(refused).toMatchObject({ admitted: false, bannedUntil: undefined });
    expect((await rl.consume(keyId, limits, T0 + MINUTE)).admitted).toBe(true);
  });

  it('unban of a key that is not banned reports nothing lifted', async () => {
    expect(await bans.unban(freshKey(), T0, TEST_CONTEXT)).toBeUndefined();
  });
});
