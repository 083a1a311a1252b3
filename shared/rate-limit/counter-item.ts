/**
 * The counters table's item of one key and UTC day, shared by the limiter (`limiter.ts`) and the
 * keys command's ban operations (`bans.ts`).
 *
 * Partition key `name` = `rate#<keyId>#<YYYY-MM-DD>`; every attribute a number:
 *
 * | attribute | meaning |
 * | --- | --- |
 * | `dayCount` | requests admitted this day |
 * | `minuteStart` | start of the minute the next two count, epoch seconds |
 * | `minuteCount` | requests admitted in that minute |
 * | `rejected` | requests refused (429) in that minute, for the ban |
 * | `dayRejected` | requests refused (429) this day, for the keys command's `usage` (not during a ban) |
 * | `bannedUntil` | end of the key's ban, epoch seconds (absent when never banned that day) |
 * | `expiresAt` | TTL: the day's end plus {@link RETENTION_SECONDS}, epoch seconds |
 *
 * The minute's counts live beside the day's, so one conditional write counts a request in both;
 * a new minute overwrites the previous minute's counts. Every minute lies within one day, so it
 * never spans two items. A ban is written on each day item it covers, so every Lambda sees it
 * with the count it makes anyway. Items are about 150 bytes: one write is one write unit.
 */
import type { KeyCounts } from './decision.ts';
import { type WindowBounds, windowAt } from './windows.ts';

/** Days a counter item outlives its day before TTL removes them: the keys command's `usage` reads them. */
export const RETENTION_DAYS = 35;

/** {@link RETENTION_DAYS} in seconds. */
export const RETENTION_SECONDS = RETENTION_DAYS * 86_400;

/** Partition key of a key's item for the day window `day`, e.g. `rate#key_1#2026-11-21`. */
export function counterName(keyId: string, day: WindowBounds): string {
  return `rate#${keyId}#${new Date(day.start * 1000).toISOString().slice(0, 10)}`;
}

/** TTL of a day's item: the day's end plus the retention, epoch seconds. */
export function expiry(day: WindowBounds): number {
  return day.resetAt + RETENTION_SECONDS;
}

/** The day windows from the one holding `nowMs` to the one holding `untilSeconds`, in order. */
export function daysUntil(nowMs: number, untilSeconds: number): WindowBounds[] {
  const days = [windowAt('day', nowMs)];
  for (let day = days[0]; day && day.resetAt <= untilSeconds; ) {
    day = windowAt('day', day.resetAt * 1000);
    days.push(day);
  }
  return days;
}

/**
 * The counts an item holds (unmarshalled).
 *
 * @param item Absent when there is no item: no counts yet.
 */
export function countsOf(item: Record<string, unknown> | undefined): KeyCounts {
  const attributes = item ?? {};
  const optional = (value: unknown) => (value === undefined ? undefined : Number(value));
  return {
    dayCount: Number(attributes.dayCount ?? 0),
    minuteStart: optional(attributes.minuteStart),
    minuteCount: Number(attributes.minuteCount ?? 0),
    rejected: Number(attributes.rejected ?? 0),
    bannedUntil: optional(attributes.bannedUntil),
  };
}
