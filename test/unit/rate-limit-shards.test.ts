/**
 * The spread layout's arithmetic (shared/rate-limit/shards.ts): shard quotas that add up to the
 * limits, the estimate of a spread key's counts, and the instance's memory per minute window.
 */
import { describe, expect, it } from 'vitest';
import { instantAt } from '../../shared/rate-limit/decision.ts';
import {
  estimatedCounts,
  isSpread,
  type KeyMinute,
  ShardMemory,
  shardLimits,
} from '../../shared/rate-limit/shards.ts';

const POLICY = { abovePerMinute: 100, shards: 4 };
const LIMITS = { perMinute: 402, perDay: 1_001 };
/** 10:30:20 UTC on 2026-11-21. */
const NOW = Date.UTC(2026, 10, 21, 10, 30, 20);
const AT = instantAt(NOW);
const MINUTE = AT.minute.start;

const knowing = (known: Partial<KeyMinute>): KeyMinute => ({
  refused: new Map(),
  rejectionCounted: false,
  ...known,
});

describe('shardLimits', () => {
  it('gives each shard an equal share, the first ones the remainder, adding up to the limits', () => {
    const quotas = [0, 1, 2, 3].map((shard) => shardLimits(LIMITS, shard, 4));

    expect(quotas.map((q) => q.perMinute)).toEqual([101, 101, 100, 100]);
    expect(quotas.map((q) => q.perDay)).toEqual([251, 250, 250, 250]);
  });

  it('spreads only keys above the threshold', () => {
    expect(isSpread({ perMinute: 100, perDay: 1_000 }, POLICY)).toBe(false);
    expect(isSpread({ perMinute: 101, perDay: 1_000 }, POLICY)).toBe(true);
  });
});

describe('estimatedCounts', () => {
  it('takes every open shard to stand as the one last written', () => {
    const lastSeen = {
      shard: 2,
      counts: { dayCount: 60, minuteStart: MINUTE, minuteCount: 40, rejected: 0 },
    };

    const counts = estimatedCounts(LIMITS, POLICY, knowing({ lastSeen }), AT);

    // 4 shards × (100 − 40) minute and 4 × (250 − 60) day requests left.
    expect(counts).toMatchObject({ minuteCount: 402 - 240, dayCount: 1_001 - 760 });
  });

  it('counts a refused shard as it stood and the open ones as the last written', () => {
    const refused = new Map([
      [0, { dayCount: 200, minuteStart: MINUTE, minuteCount: 101, rejected: 0 }],
    ]);
    const lastSeen = {
      shard: 3,
      counts: { dayCount: 150, minuteStart: MINUTE, minuteCount: 90, rejected: 0 },
    };

    const counts = estimatedCounts(LIMITS, POLICY, knowing({ refused, lastSeen }), AT);

    expect(counts).toMatchObject({ minuteCount: 402 - 30, dayCount: 1_001 - (51 + 300) });
  });

  it('leaves no request in the minute once every shard refused, and none in the day when all did for the day', () => {
    const shard = (minuteCount: number, dayCount: number) => ({
      dayCount,
      minuteStart: MINUTE,
      minuteCount,
      rejected: 0,
    });
    const byMinute = new Map([0, 1, 2, 3].map((s) => [s, shard(100, 200)]));
    const byDay = new Map([0, 1, 2, 3].map((s) => [s, shard(10, 251)]));

    expect(estimatedCounts(LIMITS, POLICY, knowing({ refused: byMinute }), AT)).toMatchObject({
      minuteCount: 402,
      dayCount: 1_001 - 4 * 50 - 1,
    });
    expect(estimatedCounts(LIMITS, POLICY, knowing({ refused: byDay }), AT)).toMatchObject({
      minuteCount: 402,
      dayCount: 1_001,
    });
  });
});

describe('ShardMemory', () => {
  it('keeps what it learnt for the minute of the requests’ clock, and forgets it in the next', () => {
    const memory = new ShardMemory();
    memory.of('key_a', MINUTE).refused.set(1, { dayCount: 1, minuteCount: 1, rejected: 0 });

    expect(memory.of('key_a', MINUTE).refused.size).toBe(1);
    expect(memory.of('key_a', MINUTE + 60).refused.size).toBe(0);
    // A request whose clock lags the latest minute gets a memory of its own, not kept.
    memory.of('key_a', MINUTE).refused.set(2, { dayCount: 1, minuteCount: 1, rejected: 0 });
    expect(memory.of('key_a', MINUTE + 60).refused.size).toBe(0);
  });
});
