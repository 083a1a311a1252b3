import { beforeEach, describe, expect, it } from 'vitest';
import { UsagePlanEmulator, type UsagePlanRefusal } from '../../infra/local/usage-plans.ts';
import { PLANS, type RequestLimits, usagePlanSettings } from '../../shared/plans.ts';

const MINUTE = 60_000;

/** 22:00 UTC on 21 November 2026: two hours before a quota reset. */
const START = Date.UTC(2026, 10, 21, 22, 0, 0);

/** Burst 2, one token back every minute, quota 2 000 a day (out of the way). */
const SMALL_BURST: RequestLimits = { perMinute: 1, perDay: 1_000 };

/** Burst 2, one token back every minute, quota 2 a day. */
const TINY: RequestLimits = { perMinute: 1, perDay: 1 };

let nowMs: number;
let usagePlans: UsagePlanEmulator;

beforeEach(() => {
  nowMs = START;
  usagePlans = new UsagePlanEmulator(() => nowMs);
});

/** The verdicts on `count` requests of `key` sent at the current instant. */
function send(
  count: number,
  limits: RequestLimits,
  key = 'key-a',
): (UsagePlanRefusal | undefined)[] {
  return Array.from({ length: count }, () => usagePlans.consume(key, limits));
}

/** How many requests in a row one instant admits before the first refusal. */
function admittedInARow(limits: RequestLimits, key = 'key-a'): number {
  let admitted = 0;
  while (usagePlans.consume(key, limits) === undefined) admitted += 1;
  return admitted;
}

describe('throttle (token bucket)', () => {
  it('admits burstLimit requests at once from a full bucket, then answers THROTTLED', () => {
    const free = PLANS.free;

    expect(admittedInARow(free)).toBe(usagePlanSettings(free).burstLimit);
    expect(usagePlans.consume('key-a', free)).toBe('THROTTLED');
  });

  it('refills at rateLimit tokens per second', () => {
    // GIVEN a Free key (rateLimit 1 per second) with an empty bucket
    const free = PLANS.free;
    admittedInARow(free);

    // WHEN 5 seconds pass
    nowMs += 5_000;

    // THEN exactly rateLimit × 5 requests get through
    expect(admittedInARow(free)).toBe(usagePlanSettings(free).rateLimit * 5);
  });

  it('gives a token back exactly when a whole one has refilled, at a rate a float cannot hold', () => {
    // GIVEN 7 requests per minute: one token every 8 571.43 ms
    const limits = { perMinute: 7, perDay: 100 };
    admittedInARow(limits);

    nowMs += 8_571;
    expect(usagePlans.consume('key-a', limits)).toBe('THROTTLED');

    nowMs += 1;
    expect(usagePlans.consume('key-a', limits)).toBeUndefined();
  });

  it('refills to the burst and no further after a long pause', () => {
    send(2, SMALL_BURST);

    nowMs += 60 * MINUTE;

    expect(send(3, SMALL_BURST)).toEqual([undefined, undefined, 'THROTTLED']);
  });

  it('keeps a separate bucket for each key', () => {
    send(2, SMALL_BURST, 'key-a');

    expect(usagePlans.consume('key-a', SMALL_BURST)).toBe('THROTTLED');
    expect(usagePlans.consume('key-b', SMALL_BURST)).toBeUndefined();
  });

  it('caps the bucket at the new burst when a key gets lower limits', () => {
    expect(usagePlans.consume('key-a', PLANS.free)).toBeUndefined();

    expect(send(3, SMALL_BURST)).toEqual([undefined, undefined, 'THROTTLED']);
  });
});

describe('quota', () => {
  it('answers QUOTA_EXCEEDED once quotaPerDay requests were admitted today', () => {
    // GIVEN a key whose 2 requests of the day are used
    expect(send(2, TINY)).toEqual([undefined, undefined]);

    // WHEN its bucket has refilled
    nowMs += 2 * MINUTE;

    // THEN the throttle lets requests through and the quota refuses them
    expect(usagePlans.consume('key-a', TINY)).toBe('QUOTA_EXCEEDED');
  });

  it('resets at 00:00 UTC', () => {
    send(2, TINY);

    nowMs = Date.UTC(2026, 10, 21, 23, 59, 59, 999);
    expect(usagePlans.consume('key-a', TINY)).toBe('QUOTA_EXCEEDED');

    nowMs = Date.UTC(2026, 10, 22, 0, 0, 0, 0);
    expect(usagePlans.consume('key-a', TINY)).toBeUndefined();
  });

  it('checks the throttle first: a throttled request takes nothing from the quota', () => {
    // GIVEN burst 2 and a quota of 4
    const limits = { perMinute: 1, perDay: 2 };

    // WHEN 5 requests come at once, and 2 more once the bucket has refilled
    const atOnce = send(5, limits);
    nowMs += 2 * MINUTE;
    const later = send(2, limits);

    // THEN the 3 throttled ones left the quota for the later 2, and it is used up after them
    expect(atOnce).toEqual([undefined, undefined, 'THROTTLED', 'THROTTLED', 'THROTTLED']);
    expect(later).toEqual([undefined, undefined]);
    nowMs += 2 * MINUTE;
    expect(usagePlans.consume('key-a', limits)).toBe('QUOTA_EXCEEDED');
  });

  it('takes a token for a request it refuses, which passed the throttle first', () => {
    send(2, TINY);
    nowMs += 2 * MINUTE;

    expect(send(3, TINY)).toEqual(['QUOTA_EXCEEDED', 'QUOTA_EXCEEDED', 'THROTTLED']);
  });

  it('keeps a separate quota for each key', () => {
    send(2, TINY, 'key-a');
    nowMs += 2 * MINUTE;

    expect(usagePlans.consume('key-a', TINY)).toBe('QUOTA_EXCEEDED');
    expect(usagePlans.consume('key-b', TINY)).toBeUndefined();
  });
});
