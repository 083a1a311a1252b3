/** The per-key rate limiter as a middy middleware (docs/rate-limits.md). */
import { withDeadline } from '../deadline.ts';
import { authorizedKey } from '../keys/authorized-key.ts';
import { logger } from '../logger.ts';
import { countOne, RATE_LIMIT_METRICS } from '../metrics.ts';
import type { RateLimitDecision } from '../rate-limit/decision.ts';
import { refusalOf } from '../rate-limit/errors.ts';
import { RATE_LIMIT_HEADERS, rateLimitHeaders, uncountedHeaders } from '../rate-limit/headers.ts';
import { RATE_LIMITER_DEADLINE_MS, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import { apiErrorOf } from './error-mapping.ts';
import type { HttpMiddleware } from './middleware.ts';

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  readonly limiter: RateLimiter;
  /** Clock, epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /** Milliseconds before the request is admitted uncounted. @default RATE_LIMITER_DEADLINE_MS */
  readonly deadlineMs?: number;
}

/**
 * Counts each request against its key's windows before any other work (register it before the
 * error handler) and puts the rate-limit headers on every answer. A limiter that fails or is
 * slower than `deadlineMs` admits the request uncounted (docs/rate-limits.md).
 *
 * @throws RateLimitedError over a limit, KeyBannedError while banned; the operation does not run.
 */
export function rateLimit(options: RateLimitOptions): HttpMiddleware {
  const { limiter, now = Date.now, deadlineMs = RATE_LIMITER_DEADLINE_MS } = options;
  // Per invocation: the headers `before` worked out, for `after` and `onError` to send.
  const headersOf = new WeakMap<object, Record<string, string>>();
  const addHeaders: NonNullable<HttpMiddleware['after']> = (request) => {
    const headers = headersOf.get(request);
    if (request.response && headers) {
      request.response.headers = { ...request.response.headers, ...headers };
    }
  };
  return {
    before: async function rateLimitBefore(request) {
      const { keyId, limits } = authorizedKey(request.event);
      const nowMs = now();
      let decision: RateLimitDecision;
      try {
        decision = await withDeadline(deadlineMs, (signal) =>
          limiter.consume(keyId, limits, nowMs, signal),
        );
      } catch (error) {
        logger.warn('Rate limiter unavailable; request admitted uncounted', { keyId, error });
        countOne(RATE_LIMIT_METRICS.unavailable);
        headersOf.set(request, uncountedHeaders(limits, nowMs));
        return;
      }
      const headers = rateLimitHeaders(decision, nowMs);
      headersOf.set(request, headers);
      if (!decision.admitted) {
        const error = refusalOf(decision, nowMs);
        logger.info('Request refused by the rate limiter', {
          keyId,
          code: apiErrorOf(error)?.code,
          window: decision.binding.name,
          retryAfterSeconds: Number(headers[RATE_LIMIT_HEADERS.retryAfter]),
        });
        countOne(
          decision.bannedUntil === undefined
            ? RATE_LIMIT_METRICS.refused
            : RATE_LIMIT_METRICS.banned,
        );
        throw error;
      }
    },
    after: addHeaders,
    onError: addHeaders,
  };
}
