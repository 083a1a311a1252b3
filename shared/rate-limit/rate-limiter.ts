/** The RateLimiter port (docs/rate-limits.md), and its ban policy. */
import { type FunctionSettings, readFunctionSettings } from '../function-settings.ts';
import type { RequestLimits } from '../plans.ts';
import type { RateLimitDecision } from './decision.ts';

/** Counts requests per key in fixed UTC windows (the minute and the day) and bans keys. */
export interface RateLimiter {
  /**
   * Counts one request against the key's minute and day; a refusal counts towards the ban.
   * @param nowMs Epoch ms. @throws StoreUnavailableError when the counters fail or the signal aborts.
   */
  consume(
    keyId: string,
    limits: RequestLimits,
    nowMs: number,
    signal?: AbortSignal,
  ): Promise<RateLimitDecision>;
}

/** When a key is banned: past `threshold` 429s in one UTC minute, for `durationSeconds`. */
export interface BanPolicy {
  readonly threshold: number;
  readonly durationSeconds: number;
}

/** The ban policy of an empty environment: the settings' defaults (50 and 900 s). */
export const DEFAULT_BAN_POLICY: BanPolicy = banPolicyOf(readFunctionSettings({}));

/** The ban policy of the settings `RATE_LIMIT_BAN_THRESHOLD` and `RATE_LIMIT_BAN_SECONDS`. */
export function banPolicyOf(settings: FunctionSettings): BanPolicy {
  return {
    threshold: settings.RATE_LIMIT_BAN_THRESHOLD,
    durationSeconds: settings.RATE_LIMIT_BAN_SECONDS,
  };
}
