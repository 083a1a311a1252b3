/** The per-key rate limiter as a middy middleware (docs/rate-limits.md). */
import type { Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { invocationBudgetMs, withDeadline } from '../deadline.ts';
import { logger } from '../logger.ts';
import { countOne, RATE_LIMIT_METRICS } from '../metrics.ts';
import type { RateLimitDecision } from '../rate-limit/decision.ts';
import { refusalOf } from '../rate-limit/errors.ts';
import { RATE_LIMITER_DEADLINE_MS, type RateLimiter } from '../rate-limit/rate-limiter.ts';
import { authorizedKey } from './authorized-key.ts';
import { apiErrorOf } from './error-mapping.ts';
import type { HttpMiddleware } from './middleware.ts';
import { RATE_LIMIT_HEADERS, rateLimitHeaders, uncountedHeaders } from './rate-limit-headers.ts';

/** One invocation as middy hands it to a middleware. */
export type HttpRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  readonly limiter: RateLimiter;
  /** Clock, epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /** Milliseconds before the request is admitted uncounted. @default RATE_LIMITER_DEADLINE_MS */
  readonly deadlineMs?: number;
  /**
   * Starts the operation's work beside the limiter's call (`httpHandler`'s `beside`).
   * @default - no such work
   */
  readonly start?: (request: HttpRequest) => Promise<void>;
}

/** Keys a function instance remembers as refused, at most (a few hundred kB). */
const REMEMBERED_KEYS = 10_000;

/**
 * Counts each request against its key's windows before any other work and puts the rate-limit
 * headers on every answer; a failing or slow limiter admits uncounted (docs/rate-limits.md).
 * @throws RateLimitedError over a limit, KeyBannedError while banned; the operation does not run.
 */
export function rateLimit(options: RateLimitOptions): HttpMiddleware {
  const { limiter, now = Date.now, deadlineMs = RATE_LIMITER_DEADLINE_MS, start } = options;
  const refusals = new ExpectedRefusals(REMEMBERED_KEYS);
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
      const counting = withDeadline(
        Math.min(deadlineMs, invocationBudgetMs(request.context)),
        (signal) => limiter.consume(keyId, limits, nowMs, signal),
      );
      // A key refused a moment ago is most likely refused again: its work waits for the verdict.
      const expectsRefusal = refusals.expects(keyId, nowMs);
      const work = expectsRefusal ? undefined : start?.(request);
      let decision: RateLimitDecision;
      try {
        decision = await counting;
      } catch (error) {
        logger.warn('Rate limiter unavailable; request admitted uncounted', { keyId, error });
        countOne(RATE_LIMIT_METRICS.unavailable);
        headersOf.set(request, uncountedHeaders(limits, nowMs));
        if (expectsRefusal) start?.(request);
        return;
      }
      refusals.learn(keyId, decision);
      const headers = rateLimitHeaders(decision, nowMs);
      headersOf.set(request, headers);
      if (decision.admitted) {
        if (expectsRefusal) start?.(request);
        return;
      }
      const error = refusalOf(decision, nowMs);
      logger.info('Request refused by the rate limiter', {
        keyId,
        code: apiErrorOf(error)?.code,
        window: decision.binding.name,
        retryAfterSeconds: Number(headers[RATE_LIMIT_HEADERS.retryAfter]),
      });
      countOne(
        decision.bannedUntil === undefined ? RATE_LIMIT_METRICS.refused : RATE_LIMIT_METRICS.banned,
      );
      // Nothing of the invocation outlives its answer.
      await work;
      throw error;
    },
    after: addHeaders,
    onError: addHeaders,
  };
}

/** The keys this instance saw refused or used up, and until when their requests will be refused. */
class ExpectedRefusals {
  /** keyId → epoch seconds until which the key's requests will be refused; oldest first. */
  private readonly until = new Map<string, number>();

  /** @param capacity Keys kept at most; past it the one learned longest ago is forgotten. */
  constructor(private readonly capacity: number) {}

  /** Whether a request of the key at `nowMs` (epoch milliseconds) will be refused. */
  expects(keyId: string, nowMs: number): boolean {
    const until = this.until.get(keyId);
    return until !== undefined && until * 1000 > nowMs;
  }

  /** Remembers what `decision` tells of the key's next requests. */
  learn(keyId: string, decision: RateLimitDecision): void {
    this.until.delete(keyId);
    // A ban shows as a minute window with nothing left until the ban ends.
    const spent = [decision.minute, decision.day].filter((window) => window.remaining === 0);
    if (spent.length === 0) return;
    this.until.set(keyId, Math.max(...spent.map((window) => window.resetAt)));
    if (this.until.size > this.capacity) {
      const [oldest] = this.until.keys();
      if (oldest !== undefined) this.until.delete(oldest);
    }
  }
}
