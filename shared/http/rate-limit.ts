/** The per-key rate limiter as a middy middleware (docs/rate-limits.md). */
import type { Context } from 'aws-lambda';
import type { Container } from '../container.ts';
import { invocationBudgetMs, withDeadline } from '../deadline.ts';
import { logger } from '../logger.ts';
import { countOne, RATE_LIMIT_METRICS } from '../metrics.ts';
import type { RateLimitDecision } from '../rate-limit/decision.ts';
import { refusalOf } from '../rate-limit/rate-limit-errors.ts';
import { type AuthorizedKey, authorizedKey } from './authorized-key.ts';
import { apiErrorOf } from './error-mapping.ts';
import { errorResponse, type HttpMiddleware } from './middleware.ts';
import { RATE_LIMIT_HEADERS, rateLimitHeaders, uncountedHeaders } from './rate-limit-headers.ts';

/** One request's count, sent in the middleware's `before`. */
export interface Count {
  readonly key: AuthorizedKey;
  /** Settles on the verdict; never rejects. */
  readonly verdict: Promise<Verdict>;
  /** The key was refused a moment ago: nothing starts beside the count. */
  readonly expectsRefusal: boolean;
}

/** The limiter's verdict on one request: its answer's headers, and its refusal if any. */
export interface Verdict {
  readonly headers: Record<string, string>;
  readonly refusal?: Error;
}

/** The context behind {@link rateLimit}, with the request's count (as middy's `setToContext`). */
export interface CountedContext extends Context {
  readonly rateLimitCount?: Count;
}

/**
 * Awaits `count`'s verdict with `read`, started at once (one round trip for both) unless the key
 * is expected refused, then after the verdict.
 * @returns What `read` gives (`undefined` without one), once the request is admitted.
 * @throws The refusal (RateLimitedError, KeyBannedError) when refused: `read`'s outcome is
 *   awaited and dropped; else `read`'s own error.
 */
export async function readBesideCount<T>(
  count: Count,
  read?: () => Promise<T>,
): Promise<T | undefined> {
  const work = count.expectsRefusal ? undefined : read?.();
  const settled = work?.catch(() => undefined);
  const { refusal } = await count.verdict;
  if (refusal) {
    // Nothing of the invocation outlives its answer.
    await settled;
    throw refusal;
  }
  return work ?? read?.();
}

/** Keys a function instance remembers as refused, at most (a few hundred kB). */
const REMEMBERED_KEYS = 10_000;

/**
 * Counts each request before any other work (`before`: the context's `rateLimitCount`, awaited by
 * `httpHandler` with the operation's read) on `container`'s limiter, its deadline
 * `RATE_LIMIT_DEADLINE_MS` and clock `now` (epoch ms), and puts the rate-limit headers on every
 * answer; a refusal answers whatever else failed, a failing or slow limiter admits uncounted.
 */
export function rateLimit(
  container: Pick<Container, 'settings' | 'rateLimiter' | 'now'>,
): HttpMiddleware<CountedContext> {
  const { rateLimiter, settings, now = Date.now } = container;
  /** keyId → until when (epoch s) this instance expects its requests refused; oldest first. */
  const refusedUntil = new Map<string, number>();

  /** Never rejects. */
  async function verdictOf(key: AuthorizedKey, nowMs: number, budgetMs: number): Promise<Verdict> {
    const { keyId, limits } = key;
    let decision: RateLimitDecision;
    try {
      decision = await withDeadline(Math.min(settings.RATE_LIMIT_DEADLINE_MS, budgetMs), (signal) =>
        rateLimiter.consume(keyId, limits, nowMs, signal),
      );
    } catch (error) {
      logger.warn('Rate limiter unavailable; request admitted uncounted', { keyId, error });
      countOne(RATE_LIMIT_METRICS.unavailable);
      return { headers: uncountedHeaders(limits, nowMs) };
    }
    expectRefusals(keyId, decision);
    const headers = rateLimitHeaders(decision, nowMs);
    if (decision.admitted) return { headers };
    const refusal = refusalOf(decision, nowMs);
    logger.info('Request refused by the rate limiter', {
      keyId,
      code: apiErrorOf(refusal)?.code,
      window: decision.binding.name,
      retryAfterSeconds: Number(headers[RATE_LIMIT_HEADERS.retryAfter]),
    });
    countOne(
      decision.bannedUntil === undefined ? RATE_LIMIT_METRICS.refused : RATE_LIMIT_METRICS.banned,
    );
    return { headers, refusal };
  }

  /** Remembers until when the key's next requests will be refused: a window with none left. */
  function expectRefusals(keyId: string, decision: RateLimitDecision): void {
    refusedUntil.delete(keyId);
    // A ban shows as a minute window with nothing left until the ban ends.
    const spent = [decision.minute, decision.day].filter((window) => window.remaining === 0);
    if (spent.length === 0) return;
    refusedUntil.set(keyId, Math.max(...spent.map((window) => window.resetAt)));
    const [oldest = ''] = refusedUntil.keys();
    if (refusedUntil.size > REMEMBERED_KEYS) refusedUntil.delete(oldest);
  }

  const answerWithVerdict: NonNullable<HttpMiddleware<CountedContext>['after']> = async (
    request,
  ) => {
    const verdict = await request.context.rateLimitCount?.verdict;
    if (verdict?.refusal && request.error !== verdict.refusal) {
      // As had the limiter answered first: over a check (query, body) that failed meanwhile.
      request.response = errorResponse(verdict.refusal);
    }
    if (request.response && verdict) {
      request.response.headers = { ...request.response.headers, ...verdict.headers };
    }
  };

  return {
    before: function rateLimitBefore(request) {
      const key = authorizedKey(request.event);
      const nowMs = now();
      const rateLimitCount: Count = {
        key,
        verdict: verdictOf(key, nowMs, invocationBudgetMs(request.context)),
        // A key refused a moment ago is most likely refused again: its read waits for the verdict.
        expectsRefusal: (refusedUntil.get(key.keyId) ?? 0) * 1000 > nowMs,
      };
      // A context object passed to several invocations (tests', the local gateway's) never
      // carries another's count.
      request.context = Object.assign(Object.create(request.context), { rateLimitCount });
    },
    after: answerWithVerdict,
    onError: answerWithVerdict,
  };
}
