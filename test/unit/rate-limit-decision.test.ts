/**
 * The rate limiter's pure parts, without DynamoDB: the decision from a key's counts
 * (shared/rate-limit/decision.ts), the windows, and the name of a key's counter item. Fixed
 * dates: nothing here reaches a table.
 */
import { describe, expect, it } from 'vitest';
import { PLANS } from '../../shared/plans.ts';
import { counterName, daysUntil, expiry } from '../../shared/rate-limit/counter-item.ts';
import {
  admittedDecision,
  countsInMinute,
  instantAt,
  type KeyCounts,
  NO_COUNTS,
  refusedDecision,
  standingOf,
  startsBan,
} from '../../shared/rate-limit/decision.ts';
import { secondsUntil, windowAt } from '../../shared/rate-limit/windows.ts';

const FREE = PLANS.free;
/** 10:30:20 UTC, in the minute starting at 10:30:00. */
const NOW_MS = Date.parse('2026-11-21T10:30:20Z');
const AT = instantAt(NOW_MS);
const MINUTE_START = Date.parse('2026-11-21T10:30:00Z') / 1000;
const MIDNIGHT = Date.parse('2026-11-22T00:00:00Z') / 1000;

/** Counts stored in the request's minute. */
function inThisMinute(counts: Partial<KeyCounts>): KeyCounts {
  return { ...NO_COUNTS, minuteStart: MINUTE_START, ...counts };
}

describe('instantAt', () => {
  it('gives the UTC minute and day of a request and its whole second', () => {
    expect(instantAt(Date.parse('2026-11-21T10:30:20.999Z'))).toEqual({
      minute: { name: 'minute', start: MINUTE_START, resetAt: MINUTE_START + 60 },
      day: {
        name: 'day',
        start: Date.parse('2026-11-21T00:00:00Z') / 1000,
        resetAt: MIDNIGHT,
      },
      nowSeconds: MINUTE_START + 20,
    });
  });
});

describe('standingOf', () => {
  it('is open while both windows have room in the stored minute', () => {
    expect(standingOf(inThisMinute({ minuteCount: 59, dayCount: 999 }), FREE, AT)).toBe('open');
  });

  it('is over limit once the minute or the day is used up', () => {
    expect(standingOf(inThisMinute({ minuteCount: 60, dayCount: 60 }), FREE, AT)).toBe(
      'over limit',
    );
    expect(standingOf(inThisMinute({ minuteCount: 1, dayCount: 1000 }), FREE, AT)).toBe(
      'over limit',
    );
  });

  it('asks for a new minute when the stored minute is earlier, or there is none', () => {
    const earlier = inThisMinute({ minuteStart: MINUTE_START - 60, minuteCount: 60 });
    expect(standingOf(earlier, FREE, AT)).toBe('new minute');
    expect(standingOf(NO_COUNTS, FREE, AT)).toBe('new minute');
  });

  it('is over limit on a used-up day even when the stored minute is earlier', () => {
    const earlier = inThisMinute({ minuteStart: MINUTE_START - 600, dayCount: 1000 });
    expect(standingOf(earlier, FREE, AT)).toBe('over limit');
  });

  it('counts a request whose clock lags in the later minute another request started', () => {
    const later = inThisMinute({ minuteStart: MINUTE_START + 60, minuteCount: 3 });
    expect(standingOf(later, FREE, AT)).toBe('open');
    expect(countsInMinute(later, AT.minute)).toBe(later);
  });

  it('is banned while a ban lies ahead, before any limit, and no longer from its last second', () => {
    const banned = inThisMinute({ minuteCount: 60, bannedUntil: AT.nowSeconds + 1 });
    expect(standingOf(banned, FREE, AT)).toBe('banned');
    expect(standingOf({ ...NO_COUNTS, bannedUntil: AT.nowSeconds + 1 }, FREE, AT)).toBe('banned');
    expect(standingOf({ ...banned, bannedUntil: AT.nowSeconds }, FREE, AT)).toBe('over limit');
  });
});

describe('countsInMinute', () => {
  it("zeroes an earlier minute's counts and keeps the day's and the ban", () => {
    const earlier = { dayCount: 70, minuteStart: 0, minuteCount: 60, rejected: 9, bannedUntil: 5 };
    expect(countsInMinute(earlier, AT.minute)).toEqual({
      dayCount: 70,
      minuteStart: MINUTE_START,
      minuteCount: 0,
      rejected: 0,
      bannedUntil: 5,
    });
  });
});

describe('startsBan', () => {
  it('bans past the threshold, not at it', () => {
    expect(startsBan(50, 50)).toBe(false);
    expect(startsBan(51, 50)).toBe(true);
  });
});

describe('admittedDecision', () => {
  it('counts both windows down and binds to the minute', () => {
    const decision = admittedDecision(inThisMinute({ minuteCount: 1, dayCount: 1 }), FREE, AT);
    expect(decision).toMatchObject({
      admitted: true,
      minute: { name: 'minute', limit: 60, remaining: 59, resetAt: MINUTE_START + 60 },
      day: { name: 'day', limit: 1000, remaining: 999, resetAt: MIDNIGHT },
      binding: { name: 'minute', remaining: 59 },
    });
    expect(decision.bannedUntil).toBeUndefined();
  });

  it('binds to the day once it has fewer requests left than the minute', () => {
    const limits = { perMinute: 10, perDay: 12 };
    const decision = admittedDecision(inThisMinute({ minuteCount: 1, dayCount: 9 }), limits, AT);
    expect(decision.binding).toMatchObject({ name: 'day', limit: 12, remaining: 3 });
    const tie = admittedDecision(inThisMinute({ minuteCount: 7, dayCount: 9 }), limits, AT);
    expect(tie.binding.name).toBe('minute');
  });
});

describe('refusedDecision', () => {
  it('binds to the used-up minute, never showing a negative remainder', () => {
    const decision = refusedDecision(inThisMinute({ minuteCount: 61, dayCount: 61 }), FREE, AT);
    expect(decision).toMatchObject({ admitted: false, bannedUntil: undefined });
    expect(decision.binding).toMatchObject({ name: 'minute', remaining: 0 });
    expect(decision.day.remaining).toBe(939);
  });

  it('binds to the used-up day, which resets last, with the minute showing its own counts', () => {
    const limits = { perMinute: 5, perDay: 5 };
    const earlier = inThisMinute({ minuteStart: MINUTE_START - 60, minuteCount: 5, dayCount: 5 });
    const decision = refusedDecision(earlier, limits, AT);
    expect(decision.binding).toMatchObject({ name: 'day', remaining: 0, resetAt: MIDNIGHT });
    expect(decision.minute.remaining).toBe(5);
    const both = refusedDecision(inThisMinute({ minuteCount: 5, dayCount: 5 }), limits, AT);
    expect(both.binding.name).toBe('day');
  });

  it('shows a banned key no request left in the minute until the ban ends', () => {
    const bannedUntil = AT.nowSeconds + 900;
    const decision = refusedDecision(inThisMinute({ minuteCount: 2 }), FREE, AT, bannedUntil);
    expect(decision.bannedUntil).toBe(bannedUntil);
    expect(decision.binding).toMatchObject({ name: 'minute', remaining: 0, resetAt: bannedUntil });
  });
});

describe('counterName, expiry and daysUntil', () => {
  it('names the item of a key and UTC day', () => {
    const at = Date.parse('2026-11-21T23:59:59.999Z');
    expect(counterName('key_1', windowAt('day', at))).toBe('rate#key_1#2026-11-21');
  });

  it('keeps an item 35 days after its day ends, for `npm run keys -- usage`', () => {
    expect(expiry(AT.day)).toBe(MIDNIGHT + 35 * 86_400);
  });

  it('lists every day a ban touches', () => {
    const late = Date.parse('2026-11-21T23:55:00Z');
    expect(daysUntil(late, late / 1000 + 900).map((day) => day.start)).toEqual([
      windowAt('day', late).start,
      MIDNIGHT,
    ]);
    expect(daysUntil(NOW_MS, AT.nowSeconds + 900)).toEqual([AT.day]);
  });
});

describe('windowAt and secondsUntil', () => {
  it('aligns the day to 00:00 UTC and the minute to its first second', () => {
    const at = Date.parse('2026-11-21T23:59:59.500Z');
    expect(windowAt('day', at)).toEqual({
      name: 'day',
      start: Date.parse('2026-11-21T00:00:00Z') / 1000,
      resetAt: Date.parse('2026-11-22T00:00:00Z') / 1000,
    });
    expect(windowAt('minute', at).resetAt).toBe(Date.parse('2026-11-22T00:00:00Z') / 1000);
  });

  it('rounds a wait up to whole seconds, never below its floor', () => {
    expect(secondsUntil(100, 98_200, 1)).toBe(2);
    expect(secondsUntil(100, 99_999, 1)).toBe(1);
    expect(secondsUntil(100, 100_000, 1)).toBe(1);
    expect(secondsUntil(100, 100_000, 0)).toBe(0);
  });
});
