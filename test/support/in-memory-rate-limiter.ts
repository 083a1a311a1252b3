/** A RateLimiter in memory, with the decisions of the DynamoDB one; for tests. */
import type { RequestLimits } from '../../shared/plans.ts';
import { counterName, daysUntil } from '../../shared/rate-limit/counter-item.ts';
import {
  activeBan,
  admittedDecision,
  countsInMinute,
  instantAt,
  type KeyCounts,
  NO_COUNTS,
  type RateLimitDecision,
  type RequestInstant,
  refusedDecision,
  standingOf,
  startsBan,
} from '../../shared/rate-limit/decision.ts';
import {
  type BanPolicy,
  DEFAULT_BAN_POLICY,
  type RateLimiter,
} from '../../shared/rate-limit/rate-limiter.ts';

/** Counts per key and UTC day in a Map, as the counters table keeps them. */
export class InMemoryRateLimiter implements RateLimiter {
  private readonly items = new Map<string, KeyCounts>();

  /** @param banPolicy @default DEFAULT_BAN_POLICY */
  constructor(private readonly banPolicy: BanPolicy = DEFAULT_BAN_POLICY) {}

  async consume(keyId: string, limits: RequestLimits, nowMs: number): Promise<RateLimitDecision> {
    const at = instantAt(nowMs);
    const name = counterName(keyId, at.day);
    const counts = this.items.get(name) ?? NO_COUNTS;
    const standing = standingOf(counts, limits, at);
    if (standing === 'banned') return refusedDecision(counts, limits, at, counts.bannedUntil);
    const current = countsInMinute(counts, at.minute);
    if (standing !== 'over limit') {
      const admitted = {
        ...current,
        dayCount: current.dayCount + 1,
        minuteCount: current.minuteCount + 1,
      };
      this.items.set(name, admitted);
      return admittedDecision(admitted, limits, at);
    }
    const rejected = current.rejected + 1;
    this.items.set(name, { ...current, rejected });
    const bannedUntil = startsBan(rejected, this.banPolicy.threshold)
      ? this.ban(keyId, at, at.nowSeconds + this.banPolicy.durationSeconds)
      : undefined;
    return refusedDecision(counts, limits, at, bannedUntil);
  }

  /** Bans the key until `until` on every day it touches; a ban in force stands. */
  private ban(keyId: string, at: RequestInstant, until: number): number {
    const ends = daysUntil(at.nowSeconds * 1000, until).map((day) => {
      const name = counterName(keyId, day);
      const counts = this.items.get(name) ?? NO_COUNTS;
      const inForce = activeBan(counts, at);
      if (inForce !== undefined) return inForce;
      this.items.set(name, { ...counts, bannedUntil: until });
      return until;
    });
    return ends[0] ?? until;
  }
}
