/** Refusals of the rate limiter; `shared/http/error-mapping.ts` answers them 429. */
import type { RateLimitDecision } from './decision.ts';
import { secondsUntil } from './windows.ts';

/** A window of the key is used up. */
export class RateLimitedError extends Error {
  override readonly name = 'RateLimitedError';

  /** @param retryAfterSeconds Whole seconds until the binding window resets (at least 1). */
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The key kept sending after its refusals and is banned. */
export class KeyBannedError extends Error {
  override readonly name = 'KeyBannedError';

  /** @param retryAfterSeconds Whole seconds until the ban ends (at least 1). */
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
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
