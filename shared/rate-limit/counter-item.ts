/** The counters table's item of one key and UTC day (its attributes: docs/rate-limits.md). */
import type { KeyCounts } from './decision.ts';
import { type WindowBounds, windowAt } from './windows.ts';

/** Days a counter item outlives its day before TTL removes them: the keys command's `usage` reads them. */
export const RETENTION_DAYS = 35;

/** Partition key of a key's item for the day window `day`, e.g. `rate#key_1#2026-11-21`. */
export function counterName(keyId: string, day: WindowBounds): string {
  return `rate#${keyId}#${new Date(day.start * 1000).toISOString().slice(0, 10)}`;
}

/** TTL of a day's item: the day's end plus the retention, epoch seconds. */
export function expiry(day: WindowBounds): number {
  return day.resetAt + RETENTION_DAYS * 86_400;
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

/** The counts an item holds (unmarshalled); @param item absent when there is none yet. */
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
