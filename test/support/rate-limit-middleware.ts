/**
 * Fixtures of the rateLimit middleware tests (test/unit/rate-limit-middleware.test.ts on the
 * in-memory limiter, test/dynamodb/rate-limit-middleware.test.ts on a failing counters table).
 */
import { createLambdaContext } from '../../infra/local/events.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import type { RateLimiter } from '../../shared/rate-limit/rate-limiter.ts';
import { readSettings } from '../../shared/settings.ts';
import { authorizedEvent } from './authorized-event.ts';
import { DAY_AFTER_TOMORROW, tomorrowAt, utcInstant } from './clock.ts';

/**
 * A fresh Lambda context, its deadline the function's timeout from now, as Lambda gives one per
 * invocation: one made once per file would run out part-way through a long file, and the limiter,
 * given no time, would then admit uncounted.
 */
export function invocationContext() {
  return createLambdaContext('rate-limit-test', 'req-rate-limit');
}

/** 10:30:15 UTC tomorrow: 45 s before the minute resets, 48 585 s before the day does. */
export const NOW = tomorrowAt('10:30:15');
export const MINUTE_RESET = String(tomorrowAt('10:31:00') / 1000);
export const DAY_RESET = String(utcInstant(DAY_AFTER_TOMORROW, '00:00:00') / 1000);

let keys = 0;
/** A fresh key with the given limits, as the authorizer's context describes it. */
export function key(perMinute: number, perDay: number) {
  keys += 1;
  return { keyId: `key_mw${keys}_${Date.now()}`, plan: 'enterprise', perMinute, perDay };
}

export function getEvent(k: ReturnType<typeof key>) {
  return authorizedEvent({ method: 'GET', resource: '/things', path: '/things' }, k);
}

/** An operation that counts its calls, behind `limiter` and a fixed clock ({@link NOW}). */
export function countingOperation(limiter: RateLimiter) {
  const calls = { count: 0 };
  const handler = httpHandler({
    container: { settings: readSettings(), rateLimiter: limiter, now: () => NOW },
    operation: async () => {
      calls.count += 1;
      return jsonResponse(200, { ok: true });
    },
  });
  return { handler, calls };
}
