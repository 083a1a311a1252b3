/** The spread layout of a hot key's counts (docs/rate-limits.md, "Keys past one partition"). */
import type { RequestLimits } from '../plans.ts';
import { counterName } from './counter-item.ts';
import { countsInMinute, type KeyCounts, NO_COUNTS, type RequestInstant } from './decision.ts';
import type { WindowBounds } from './windows.ts';

/** Which keys spread their counts, and over how many shard items. */
export interface SpreadPolicy {
  /** Keys with a per-minute limit above this count on shards. */
  readonly abovePerMinute: number;
  /** Shard items per key and UTC day. */
  readonly shards: number;
}

/** Above 24,000 a minute, on 25 shards (the numbers: docs/rate-limits.md). */
export const DEFAULT_SPREAD_POLICY: SpreadPolicy = { abovePerMinute: 24_000, shards: 25 };

/** Whether a key with `limits` counts on shards under `policy`. */
export function isSpread(limits: RequestLimits, policy: SpreadPolicy): boolean {
  return limits.perMinute > policy.abovePerMinute;
}

/** Partition key of shard `shard` of a key's day, e.g. `rate#key_1#2026-11-21#7`. */
export function shardName(keyId: string, day: WindowBounds, shard: number): string {
  return `${counterName(keyId, day)}#${shard}`;
}

/** Every shard item of a key's day, shard 0 first. */
export function shardNames(keyId: string, day: WindowBounds, shards: number): string[] {
  return Array.from({ length: shards }, (_, shard) => shardName(keyId, day, shard));
}

/** Shard `shard`'s quota of `limits`; the quotas add up to the limits exactly. */
export function shardLimits(limits: RequestLimits, shard: number, shards: number): RequestLimits {
  const share = (total: number) => Math.floor(total / shards) + (shard < total % shards ? 1 : 0);
  return { perMinute: share(limits.perMinute), perDay: share(limits.perDay) };
}

/** What one instance has learnt of one key's shards in one minute. */
export interface KeyMinute {
  /** Shards that refused this minute, with the counts that refused. */
  readonly refused: Map<number, KeyCounts>;
  /** The shard last counted on or seen banned this minute. */
  lastSeen?: { readonly shard: number; readonly counts: KeyCounts };
  /** Epoch seconds. */
  bannedUntil?: number;
  /** A refusal was counted on the key's day item this minute. */
  rejectionCounted: boolean;
}

/** The instance's memory of spread keys, for the requests' current minute (never wall clock). */
export class ShardMemory {
  private minute = Number.NEGATIVE_INFINITY;
  private readonly keys = new Map<string, KeyMinute>();

  /** What is known of `keyId` in the minute starting at `minuteStart` (epoch seconds). */
  of(keyId: string, minuteStart: number): KeyMinute {
    if (minuteStart > this.minute) {
      this.minute = minuteStart;
      this.keys.clear();
    }
    // A request whose clock lags the instance's latest minute learns nothing worth keeping.
    if (minuteStart < this.minute) return { refused: new Map(), rejectionCounted: false };
    const known = this.keys.get(keyId) ?? { refused: new Map(), rejectionCounted: false };
    this.keys.set(keyId, known);
    return known;
  }
}

/** A shard not known to refuse this minute, picked uniformly at random; `undefined` when none. */
export function openShard(known: KeyMinute, shards: number): number | undefined {
  const open = [...Array(shards).keys()].filter((shard) => !known.refused.has(shard));
  return open[Math.floor(Math.random() * open.length)];
}

/** The key's estimated counts from what this instance knows of its shards (docs/rate-limits.md). */
export function estimatedCounts(
  limits: RequestLimits,
  policy: SpreadPolicy,
  known: KeyMinute,
  at: RequestInstant,
): KeyCounts {
  let minuteLeft = 0;
  let dayLeft = 0;
  for (const [shard, counts] of known.refused) {
    const quota = shardLimits(limits, shard, policy.shards);
    const current = countsInMinute(counts, at.minute);
    const shardDayLeft = Math.max(0, quota.perDay - current.dayCount);
    dayLeft += shardDayLeft;
    // A shard refused for its day can admit nothing more this minute either.
    if (shardDayLeft > 0) minuteLeft += Math.max(0, quota.perMinute - current.minuteCount);
  }
  const open = policy.shards - known.refused.size;
  if (open === 0) {
    // Every shard refused, not all for the day: the minute is what is used up.
    if (dayLeft > 0) minuteLeft = 0;
  } else {
    const { shard, counts } = known.lastSeen ?? { shard: 0, counts: NO_COUNTS };
    const quota = shardLimits(limits, shard, policy.shards);
    const current = countsInMinute(counts, at.minute);
    minuteLeft += Math.max(0, quota.perMinute - current.minuteCount) * open;
    dayLeft += Math.max(0, quota.perDay - current.dayCount) * open;
  }
  return {
    dayCount: Math.max(0, limits.perDay - dayLeft),
    minuteStart: at.minute.start,
    minuteCount: Math.max(0, limits.perMinute - minuteLeft),
    rejected: 0,
  };
}
