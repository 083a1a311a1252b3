/**
 * A key's counts across regions (docs/rate-limits.md, "Several regions"): each region counts on its
 * own items and decides with the others' counts as last replicated. Pure: no I/O, no clock.
 */
import type { RequestLimits } from '../plans.ts';
import type { Standing } from './decision.ts';
import {
  activeBan,
  countsInMinute,
  type KeyCounts,
  NO_COUNTS,
  type RequestInstant,
} from './decision.ts';

/** The sum of `counts` for a request at `at` (minutes other than its own count 0); the latest ban. */
export function sumOf(counts: readonly KeyCounts[], at: RequestInstant): KeyCounts {
  return counts.reduce<KeyCounts>(
    (sum, each) => {
      const current = countsInMinute(each, at.minute);
      return {
        dayCount: sum.dayCount + each.dayCount,
        minuteStart: sum.minuteStart,
        minuteCount: sum.minuteCount + current.minuteCount,
        rejected: sum.rejected + current.rejected,
        bannedUntil: Math.max(sum.bannedUntil ?? 0, each.bannedUntil ?? 0) || undefined,
      };
    },
    { ...NO_COUNTS, minuteStart: at.minute.start },
  );
}

/** `limits` less the other regions' counts; none while they hold a ban. */
export function roomLeft(
  limits: RequestLimits,
  others: KeyCounts,
  at: RequestInstant,
): RequestLimits {
  if (activeBan(others, at) !== undefined) return { perMinute: 0, perDay: 0 };
  return {
    perMinute: limits.perMinute - countsInMinute(others, at.minute).minuteCount,
    perDay: limits.perDay - others.dayCount,
  };
}

/**
 * Where a request stands across regions: banned when the others hold a ban, over the limit when
 * admitted here (`outcome`) but the sum `all` is over.
 */
export function standingAcross(
  outcome: 'admitted' | Standing,
  all: KeyCounts,
  others: KeyCounts,
  limits: RequestLimits,
  at: RequestInstant,
): 'admitted' | Standing {
  if (activeBan(others, at) !== undefined) return 'banned';
  if (outcome !== 'admitted') return outcome;
  const over = all.minuteCount > limits.perMinute || all.dayCount > limits.perDay;
  return over ? 'over limit' : 'admitted';
}
