/** Refusals of the rate limiter; `shared/http/error-mapping.ts` answers them 429. */
import type { RateLimitDecision } from './decision.ts';
import { secondsUntil } from './windows.ts';

/** A refusal of the rate limiter. @param retryAfterSeconds Whole seconds until it ends (>= 1). */
abstract class RefusalError extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A window of the key is used up: `retryAfterSeconds` until the binding window resets. */
export class RateLimitedError extends RefusalError {
  override readonly name = 'RateLimitedError';
}

/** The key kept sending after its refusals and is banned: `retryAfterSeconds` until the ban ends. */
export class KeyBannedError extends RefusalError {
  override readonly name = 'KeyBannedError';
}

/** The error of a refused decision taken at `nowMs` (epoch ms). */
export function refusalOf(
  decision: RateLimitDecision,
  nowMs: number,
): RateLimitedError | KeyBannedError {
  const { binding, bannedUntil } = decision;
  if (bannedUntil !== undefined) {
    const seconds = secondsUntil(bannedUntil, nowMs, 1);
    return new KeyBannedError(
      `This API key kept sending requests after being rate limited and is banned until ${new Date(bannedUntil * 1000).toISOString()}; retry after ${seconds} seconds.`,
      seconds,
    );
  }
  const seconds = secondsUntil(binding.resetAt, nowMs, 1);
  return new RateLimitedError(
    `Rate limit of ${binding.limit} requests per ${binding.name} exceeded; retry after ${seconds} seconds.`,
    seconds,
  );
}
