/** The rate limiter's decision, apart from its storage. Pure: no I/O, no clock. */
import type { RequestLimits } from '../plans.ts';
import { type WindowBounds, windowAt } from './windows.ts';

/** The instant of a request and the two windows it falls in. */
export interface RequestInstant {
  readonly minute: WindowBounds;
  readonly day: WindowBounds;
  /** Whole epoch seconds (floored). */
  readonly nowSeconds: number;
}

/** The instant of a request at `nowMs` (epoch milliseconds). */
export function instantAt(nowMs: number): RequestInstant {
  return {
    minute: windowAt('minute', nowMs),
    day: windowAt('day', nowMs),
    nowSeconds: Math.floor(nowMs / 1000),
  };
}

/** A key's counts for one UTC day (`counter-item.ts`); the minute's may be an earlier minute's. */
export interface KeyCounts {
  readonly dayCount: number;
  /** Start of the minute of `minuteCount` and `rejected`, epoch seconds. */
  readonly minuteStart?: number;
  readonly minuteCount: number;
  /** Requests refused (429) in that minute, banned ones not counted. */
  readonly rejected: number;
  /** End of the key's ban, epoch seconds. */
  readonly bannedUntil?: number;
}

/** The counts of a key with no item for the day yet. */
export const NO_COUNTS: KeyCounts = { dayCount: 0, minuteCount: 0, rejected: 0 };

/** Where a key stands for a request (`standingOf`); `over limit` counts the rejection. */
export type Standing = 'banned' | 'over limit' | 'new minute' | 'open';

/** Whether `counts` hold `minute` or a later one (a request whose clock lags counts in that). */
export function holdsMinute(counts: KeyCounts, minute: WindowBounds): boolean {
  return counts.minuteStart !== undefined && counts.minuteStart >= minute.start;
}

/** The counts as they stand for a request in `minute`: the minute's are zero if they are older. */
export function countsInMinute(counts: KeyCounts, minute: WindowBounds): KeyCounts {
  if (holdsMinute(counts, minute)) return counts;
  return { ...counts, minuteStart: minute.start, minuteCount: 0, rejected: 0 };
}

/** The end of the key's ban when one is in force at `at`, epoch seconds; else `undefined`. */
export function activeBan(counts: KeyCounts, at: RequestInstant): number | undefined {
  const { bannedUntil } = counts;
  return bannedUntil !== undefined && bannedUntil > at.nowSeconds ? bannedUntil : undefined;
}

/** Where the key with `counts` and `limits` stands for a request at `at`. */
export function standingOf(counts: KeyCounts, limits: RequestLimits, at: RequestInstant): Standing {
  if (activeBan(counts, at) !== undefined) return 'banned';
  const current = countsInMinute(counts, at.minute);
  if (current.minuteCount >= limits.perMinute || current.dayCount >= limits.perDay) {
    return 'over limit';
  }
  return holdsMinute(counts, at.minute) ? 'open' : 'new minute';
}

/** Whether the minute's `rejected` count with this refusal passes the ban `threshold`. */
export function startsBan(rejected: number, threshold: number): boolean {
  return rejected > threshold;
}

/** Where a key stands in one window after a request was counted or refused. */
export interface WindowUsage extends WindowBounds {
  readonly limit: number;
  /** Never negative; 0 in the minute window while the key is banned. */
  readonly remaining: number;
}

/** The limiter's verdict on one request. */
export interface RateLimitDecision {
  readonly admitted: boolean;
  readonly minute: WindowUsage;
  readonly day: WindowUsage;
  /** The window the client should go by (`X-RateLimit-*`; docs/rate-limits.md). */
  readonly binding: WindowUsage;
  /** End of the ban that refused the request, epoch seconds. */
  readonly bannedUntil?: number;
}

/** The verdict on an admitted request. @param counts The key's counts with this request in them. */
export function admittedDecision(
  counts: KeyCounts,
  limits: RequestLimits,
  at: RequestInstant,
): RateLimitDecision {
  const minute = usage(at.minute, limits.perMinute, counts.minuteCount);
  const day = usage(at.day, limits.perDay, counts.dayCount);
  return { admitted: true, minute, day, binding: day.remaining < minute.remaining ? day : minute };
}

/**
 * The verdict on a refused request; while banned, the minute shows none left until the ban ends.
 * @param counts The counts that refused it. @param bannedUntil The ban in force, epoch seconds.
 */
export function refusedDecision(
  counts: KeyCounts,
  limits: RequestLimits,
  at: RequestInstant,
  bannedUntil?: number,
): RateLimitDecision {
  const counted = usage(at.minute, limits.perMinute, countsInMinute(counts, at.minute).minuteCount);
  const minute =
    bannedUntil === undefined
      ? counted
      : { ...counted, remaining: 0, resetAt: Math.max(counted.resetAt, bannedUntil) };
  const day = usage(at.day, limits.perDay, counts.dayCount);
  // The window used up that resets last; the minute when none is.
  const dayBinds = day.remaining === 0 && (minute.remaining > 0 || day.resetAt > minute.resetAt);
  return { admitted: false, minute, day, binding: dayBinds ? day : minute, bannedUntil };
}

function usage(window: WindowBounds, limit: number, count: number): WindowUsage {
  return { ...window, limit, remaining: Math.max(0, limit - count) };
}
