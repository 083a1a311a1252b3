/** What an operator or account sees of a key's counters in every region: ban, days, windows now. */
import type { RequestLimits } from '../plans.ts';
import { type Regions, regionalName } from '../regions.ts';
import {
  admittedDecision,
  instantAt,
  type KeyCounts,
  refusedDecision,
  type WindowUsage,
} from './decision.ts';

export interface BanState {
  /** Epoch seconds. */
  readonly bannedUntil: number;
}

/** One key's requests on one UTC day. */
export interface DayUsage {
  readonly day: string;
  readonly admitted: number;
  /** Refused with 429 over a limit (during a ban: not counted). */
  readonly refused: number;
}

/** The last day of `usage` (newest first) with any request, or `undefined`. */
export function lastUsedDay(usage: readonly DayUsage[]): string | undefined {
  return usage.find(({ admitted, refused }) => admitted + refused > 0)?.day;
}

/** The keys of the counter item `name` in every region, the home region's first. */
export function everyName(name: string, regions: Regions): string[] {
  return regions.names.map((_, at) => regionalName(name, regions, at));
}

/** A key's usage now: its days, newest first, and where it stands in this minute and today. */
export interface KeyUsageNow {
  readonly days: DayUsage[];
  readonly minute: WindowUsage;
  readonly day: WindowUsage;
}

/**
 * Where a key with `counts` (summed over regions and shards) stands at `nowMs` (epoch ms) in its
 * minute and day windows: what is left of `limits`, and when each resets; while a ban is in force
 * nothing is left this minute, until the ban ends (as a refused request's headers say).
 */
export function windowsNow(
  counts: KeyCounts,
  limits: RequestLimits,
  nowMs: number,
): Omit<KeyUsageNow, 'days'> {
  const at = instantAt(nowMs);
  const banned = (counts.bannedUntil ?? 0) > at.nowSeconds ? counts.bannedUntil : undefined;
  const { minute, day } = banned
    ? refusedDecision(counts, limits, at, banned)
    : admittedDecision(counts, limits, at);
  return { minute, day };
}
