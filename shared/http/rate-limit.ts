/**
 * The per-key rate limiter as a middy middleware (docs/rate-limits.md): counts each request
 * before any other work and puts the rate-limit headers on every answer.
 */
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
  /**
   * Clock, epoch milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * Milliseconds the limiter's calls may take before the request is admitted uncounted (the
   * setting `RATE_LIMIT_DEADLINE_MS`).
   * @default RATE_LIMITER_DEADLINE_MS
   */
  readonly deadlineMs?: number;
}

/**
 * Counts each request against its key's windows before any other work, and puts the rate-limit
 * headers on every response, errors included (see `rate-limit/headers.ts`).
 *
 * Register it before the error handler: its `before` then runs after the header normalizer and
 * before body parsing, and its `onError` after the error handler has built the Error response.
 *
 * - Over a limit: throws RateLimitedError (429 `rate_limited`); the handler does not run.
 * - Banned: throws KeyBannedError (429 `api_key_temporarily_banned`, `Retry-After` until the ban
 *   ends).
 * - Limiter failing, or slower than `deadlineMs`: fails open, admits the request with a logged
 *   warning, the metric `RateLimiterUnavailable` (alarmed on) and the headers that need no count
 *   (see `uncountedHeaders`); the usage plan still guards the edge.
 *
 * Each refusal is logged (key id, code, window) and counted as `RateLimitRefused` or
 * `RateLimitBanned`.
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
