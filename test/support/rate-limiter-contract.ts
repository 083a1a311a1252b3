/**
 * What every RateLimiter decides, as one suite that each adapter's test file runs: fixed UTC
 * minute and day windows, the binding window, and the ban of a key that keeps sending.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RateLimitDecision } from '../../shared/rate-limit/decision.ts';
import type { BanPolicy, RateLimiter } from '../../shared/rate-limit/rate-limiter.ts';
import { windowAt } from '../../shared/rate-limit/windows.ts';
import { tomorrowAt } from './clock.ts';

/** 10:30:00 UTC tomorrow: counter items of this instant expire in the future. */
const T0 = tomorrowAt('10:30:00');
const MINUTE_MS = 60_000;
const POLICY: BanPolicy = { threshold: 2, durationSeconds: 600 };

/**
 * Runs the RateLimiter contract on limiters that `make` builds with the ban policy it is given
 * (threshold 2, 600 s).
 */
export function rateLimiterContract(adapter: string, make: (policy: BanPolicy) => RateLimiter) {
  describe(`RateLimiter contract: ${adapter}`, () => {
    const limits = { perMinute: 3, perDay: 5 };
    async function send(limiter: RateLimiter, keyId: string, count: number, nowMs: number) {
      const decisions: RateLimitDecision[] = [];
      for (let i = 0; i < count; i++) decisions.push(await limiter.consume(keyId, limits, nowMs));
      return decisions;
    }

    it('admits perMinute requests in a minute, then refuses with the minute binding', async () => {
      const decisions = await send(make(POLICY), randomUUID(), 4, T0 + 5_000);

      expect(decisions.map((d) => [d.admitted, d.minute.remaining, d.day.remaining])).toEqual([
        [true, 2, 4],
        [true, 1, 3],
        [true, 0, 2],
        [false, 0, 2],
      ]);
      expect(decisions[3]?.binding).toEqual({
        ...windowAt('minute', T0),
        limit: 3,
        remaining: 0,
      });
      expect(decisions[3]?.bannedUntil).toBeUndefined();
    });

    it('admits again in the next minute until the day is used up, then binds the day', async () => {
      const limiter = make(POLICY);
      const keyId = randomUUID();
      await send(limiter, keyId, 3, T0);

      const next = await send(limiter, keyId, 3, T0 + MINUTE_MS);

      expect(next.map((d) => d.admitted)).toEqual([true, true, false]);
      expect(next[2]?.binding).toEqual({ ...windowAt('day', T0), limit: 5, remaining: 0 });
    });

    it('bans a key whose refusals in a minute pass the threshold, until the ban ends', async () => {
      const limiter = make(POLICY);
      const keyId = randomUUID();
      await send(limiter, keyId, 3, T0);

      const refused = await send(limiter, keyId, 3, T0 + 1_000);
      const later = await limiter.consume(keyId, limits, T0 + 2 * MINUTE_MS);
      const after = await limiter.consume(keyId, limits, T0 + 1_000 + 601_000);

      expect(refused.map((d) => d.bannedUntil)).toEqual([undefined, undefined, T0 / 1000 + 601]);
      expect(later).toMatchObject({ admitted: false, bannedUntil: T0 / 1000 + 601 });
      expect(later.binding.resetAt).toBe(T0 / 1000 + 601);
      expect(after.admitted).toBe(true);
    });
  });
}
