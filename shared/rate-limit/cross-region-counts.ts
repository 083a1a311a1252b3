/** A key's counts across regions, each deciding with the others' as last replicated (docs/rate-limits.md). */
import type { RequestLimits } from '../plans.ts';
import {
  activeBan,
  countsInMinute,
  type KeyCounts,
  type RequestInstant,
  type Standing,
} from './decision.ts';

/** The sum of `counts` for a request at `at` (minutes other than its own count 0); the latest ban. */
export function sumOf(counts: readonly KeyCounts[], at: RequestInstant): KeyCounts {
  const current = counts.map((each) => countsInMinute(each, at.minute));
  const sum = (count: 'dayCount' | 'minuteCount' | 'rejected') =>
    current.reduce((total, each) => total + each[count], 0);
  return {
    dayCount: sum('dayCount'),
    minuteStart: at.minute.start,
    minuteCount: sum('minuteCount'),
    rejected: sum('rejected'),
    bannedUntil: Math.max(0, ...counts.map((each) => each.bannedUntil ?? 0)) || undefined,
  };
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

/** Where a request stands across regions: banned by the others' ban, over when `all` is. */
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
