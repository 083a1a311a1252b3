/**
 * When the client retries a call, and how long it waits first: only what is safe to send again
 * (docs/openapi.yaml, "Retries and idempotency"), with exponential backoff and full jitter, never
 * sooner than `Retry-After`. Rationale: docs/client.md.
 */
import type { PetstoreError } from './errors.ts';

/** What happened before a retry, for {@link RetryOptions.onRetry}. */
export interface RetryEvent {
  /** The attempt that failed (1 for the first). */
  readonly attempt: number;
  /** Milliseconds the client waits before the next attempt. */
  readonly delayMs: number;
  /** Why the attempt failed. */
  readonly error: PetstoreError;
}

/** How a call is retried. */
export interface RetryOptions {
  /**
   * Most attempts of one call, the first included (1: never retry).
   * @default 3
   */
  readonly maxAttempts: number;
  /**
   * Most milliseconds one call may take, its attempts and waits included: no attempt outlives it
   * and no retry is started that would wait beyond it.
   * @default 60_000
   */
  readonly maxElapsedMs: number;
  /**
   * Cap of the first retry's random delay; it doubles with each retry.
   * @default 500
   */
  readonly baseDelayMs: number;
  /**
   * Most milliseconds of the random delay (`Retry-After` may ask for longer, and is honoured).
   * @default 20_000
   */
  readonly maxDelayMs: number;
  /**
   * Called before each retry's wait, e.g. to log it.
   * @default - none
   */
  readonly onRetry?: (event: RetryEvent) => void;
}

/** The defaults of {@link RetryOptions}. */
export const DEFAULT_RETRY: RetryOptions = {
  maxAttempts: 3,
  maxElapsedMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
};

/**
 * Least milliseconds before a create is sent again: twice the usual replication lag between the
 * API's regions (about a second), so that a retry reaching another region finds the first
 * attempt's Idempotency-Key record there and replays it (docs/idempotency.md, "Several regions").
 */
export const CREATE_RETRY_FLOOR_MS = 2_000;

/** HTTP statuses that are retried whatever their code: the API or a proxy in front failed. */
const RETRIED_STATUSES = new Set([502, 503, 504]);

/**
 * Whether a failed attempt may be sent again: a network error or timeout, 502, 503, 504, 429
 * `rate_limited` (never `api_key_temporarily_banned` nor `quota_exceeded`, which more requests
 * only prolong), and, for a create with an Idempotency-Key, 409
 * `idempotency_request_in_progress` (the same create, still running).
 *
 * @param error The attempt's error.
 * @param idempotent Whether sending the request again cannot repeat its effect: a GET, or a POST
 *   with an Idempotency-Key.
 */
export function isRetryable(error: PetstoreError, idempotent: boolean): boolean {
  if (!idempotent) return false;
  switch (error.code) {
    case 'network_error':
    case 'timeout':
    case 'rate_limited':
    case 'idempotency_request_in_progress':
      return true;
    default:
      return error.status !== undefined && RETRIED_STATUSES.has(error.status);
  }
}

/**
 * The wait before retry number `retry` (1 for the first): "full jitter", a uniformly random
 * delay in `[0, min(maxDelayMs, baseDelayMs × 2^(retry − 1)))`, but never less than
 * `Retry-After`.
 *
 * @param retryAfter Seconds the answer asked to wait (`Retry-After`), if any.
 * @param random Uniform in [0, 1). @default Math.random
 * @returns Milliseconds.
 */
export function backoffDelay(
  retry: number,
  retryAfter: number | undefined,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  const cap = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.max((retryAfter ?? 0) * 1000, Math.floor(random() * cap));
}
