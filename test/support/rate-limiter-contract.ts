/**
 * What every RateLimiter decides, as one suite that each adapter's test file runs: fixed UTC
 * minute and day windows, the binding window, and the ban of a key that keeps sending, for a key
 * on one item and for a key whose counts spread (where an adapter spreads them).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RateLimitDecision } from '../../shared/rate-limit/decision.ts';
import type { BanPolicy, RateLimiter } from '../../shared/rate-limit/rate-limiter.ts';
import type { SpreadPolicy } from '../../shared/rate-limit/shards.ts';
import { windowAt } from '../../shared/rate-limit/windows.ts';
import { tomorrowAt } from './clock.ts';

/** 10:30:00 UTC tomorrow: counter items of this instant expire in the future. */
const T0 = tomorrowAt('10:30:00');
const MINUTE_MS = 60_000;
const POLICY: BanPolicy = { threshold: 2, durationSeconds: 600 };

/** The spread policy an adapter that spreads counts runs this suite with: 12 a minute spreads. */
export const CONTRACT_SPREAD_POLICY: SpreadPolicy = { abovePerMinute: 10, shards: 3 };

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

    describe('a key above the spread threshold', () => {
      const large = { perMinute: 12, perDay: 20 };
      const sendLarge = async (limiter: RateLimiter, keyId: string, count: number, at: number) => {
        const decisions: RateLimitDecision[] = [];
        for (let i = 0; i < count; i++) decisions.push(await limiter.consume(keyId, large, at));
        return decisions;
      };

      it('admits exactly perMinute in a minute and perDay in a day, then refuses with the window that binds', async () => {
        const limiter = make(POLICY);
        const keyId = randomUUID();

        const first = await sendLarge(limiter, keyId, 13, T0);
        const second = await sendLarge(limiter, keyId, 9, T0 + MINUTE_MS);

        expect(first.filter((d) => d.admitted)).toHaveLength(12);
        expect(first[12]).toMatchObject({
          admitted: false,
          binding: { name: 'minute', remaining: 0 },
        });
        expect(second.filter((d) => d.admitted)).toHaveLength(8);
        expect(second[8]).toMatchObject({
          admitted: false,
          binding: { ...windowAt('day', T0), limit: 20, remaining: 0 },
        });
      });

      it('bans it once its refusals in a minute pass the threshold', async () => {
        const limiter = make(POLICY);
        const keyId = randomUUID();
        await sendLarge(limiter, keyId, 12, T0);

        const refused = await sendLarge(limiter, keyId, 3, T0 + 1_000);
        const later = await limiter.consume(keyId, large, T0 + 2 * MINUTE_MS);

        expect(refused.map((d) => d.bannedUntil)).toEqual([undefined, undefined, T0 / 1000 + 601]);
        expect(later).toMatchObject({ admitted: false, bannedUntil: T0 / 1000 + 601 });
      });
    });
  });
}
