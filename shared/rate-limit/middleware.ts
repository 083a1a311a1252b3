/**
 * The per-key rate limiter as a middy middleware (petstore-spec.md, "Limits"), and the limiter a
 * deployed or local function builds from its environment.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type Container, createContainer } from '../container.ts';
import { withDeadline } from '../deadline.ts';
import { ApiError } from '../http/errors.ts';
import { logger } from '../logger.ts';
import { countOne, RATE_LIMIT_METRICS } from '../metrics.ts';
import { limitsFromContext, type RequestLimits } from '../plans.ts';
import { readSetting, requiredSetting, type Settings } from '../settings.ts';
import type { RateLimitDecision } from './decision.ts';
import { RATE_LIMIT_HEADERS, rateLimitHeaders, uncountedHeaders } from './headers.ts';
import { type BanPolicy, DynamoDBRateLimiter } from './limiter.ts';
import { secondsUntil } from './windows.ts';

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** What the middleware needs of a limiter (the DynamoDB one, or a test's). */
export type RateLimiter = Pick<DynamoDBRateLimiter, 'consume'>;

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  readonly limiter: RateLimiter;
  /**
   * Clock, epoch milliseconds.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * Milliseconds the limiter's DynamoDB calls may take before the request is admitted uncounted
   * (the setting `RATE_LIMIT_DEADLINE_MS`).
   * @default RATE_LIMITER_DEADLINE_MS
   */
  readonly deadlineMs?: number;
}

/** How long a request waits for the rate limiter by default, in milliseconds: the schema's default. */
export const RATE_LIMITER_DEADLINE_MS = readSetting('RATE_LIMIT_DEADLINE_MS', {});

/** Environment variable that overrides {@link RATE_LIMITER_DEADLINE_MS}. */
export const RATE_LIMITER_DEADLINE_ENV = 'RATE_LIMIT_DEADLINE_MS' satisfies keyof Settings;

/** Environment variables that configure the ban (see {@link BanPolicy}). */
export const BAN_POLICY_ENV = {
  threshold: 'RATE_LIMIT_BAN_THRESHOLD',
  durationSeconds: 'RATE_LIMIT_BAN_SECONDS',
} as const satisfies Record<keyof BanPolicy, keyof Settings>;

/**
 * The key's identity and limits from the authorizer's context, which API Gateway passes as strings.
 *
 * @throws Error when the context lacks them: a deployment fault (every method has the
 *   authorizer), never something a client can cause.
 */
export function authorizedKey(event: APIGatewayProxyEvent): {
  keyId: string;
  limits: RequestLimits;
} {
  const context = event.requestContext.authorizer;
  const keyId = context?.keyId;
  const limits = limitsFromContext(context);
  if (typeof keyId !== 'string' || !limits) {
    throw new Error('The authorizer context lacks keyId, perMinute or perDay');
  }
  return { keyId, limits };
}

/**
 * Counts each request against its key's windows before any other work, and puts the rate-limit
 * headers on every response, errors included (see `headers.ts`).
 *
 * Register it before the error handler: its `before` then runs after the header normalizer and
 * before body parsing, and its `onError` after the error handler has built the Error response.
 *
 * - Over a limit: throws 429 `rate_limited`; the handler does not run (no pet is read or written).
 * - Banned: throws 429 `api_key_temporarily_banned`, `Retry-After` until the ban ends.
 * - Counters table failing, or slower than `deadlineMs`: fails open, admits the request with a logged warning, the metric
 *   `RateLimiterUnavailable` (alarmed on) and the headers that need no count (see
 *   `uncountedHeaders`); the usage plan still guards the edge.
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
        const error = refusal(decision, nowMs, headers);
        logger.info('Request refused by the rate limiter', {
          keyId,
          code: error.code,
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

function refusal(
  decision: RateLimitDecision,
  nowMs: number,
  headers: Record<string, string>,
): ApiError {
  const { binding, bannedUntil } = decision;
  if (bannedUntil !== undefined) {
    const seconds = secondsUntil(bannedUntil, nowMs, 1);
    return new ApiError(
      'api_key_temporarily_banned',
      `This API key kept sending requests after being rate limited and is banned until ${new Date(bannedUntil * 1000).toISOString()}; retry after ${seconds} seconds.`,
      { headers },
    );
  }
  return new ApiError(
    'rate_limited',
    `Rate limit of ${binding.limit} requests per ${binding.name} exceeded; retry after ${secondsUntil(binding.resetAt, nowMs, 1)} seconds.`,
    { headers },
  );
}

/** The ban policy of the settings `RATE_LIMIT_BAN_THRESHOLD` and `RATE_LIMIT_BAN_SECONDS`. */
export function banPolicyOf(settings: Settings): BanPolicy {
  return {
    threshold: settings.RATE_LIMIT_BAN_THRESHOLD,
    durationSeconds: settings.RATE_LIMIT_BAN_SECONDS,
  };
}

/**
 * The limiter of a deployed or local function: counters table from `COUNTERS_TABLE_NAME`, ban
 * policy from {@link banPolicyOf}, on the container's document client.
 *
 * @param container @default createContainer()
 * @throws Error at start-up when the table name is missing.
 */
export function rateLimiterFromEnv(
  { settings, client }: Container = createContainer(),
): DynamoDBRateLimiter {
  return new DynamoDBRateLimiter(
    client,
    requiredSetting(settings, 'COUNTERS_TABLE_NAME'),
    banPolicyOf(settings),
  );
}
