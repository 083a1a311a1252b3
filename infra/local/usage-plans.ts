/**
 * API Gateway's usage plans, emulated in memory for the local gateway: per API key a token bucket
 * (`burstLimit`, refilled at `rateLimit`/s) and a quota per UTC day (docs/local-stack.md).
 */
import { limitsFromContext, type RequestLimits, usagePlanSettings } from '../../shared/plans.ts';
import type { GatewayResponseType } from '../gateway-responses.ts';
import type { AuthorizerResult } from './lambda-results.ts';

/** The gateway responses a usage plan answers with. */
export type UsagePlanRefusal = Extract<GatewayResponseType, 'THROTTLED' | 'QUOTA_EXCEEDED'>;

/**
 * Bucket contents are counted in 1/60 000 of a token. `rateLimit` is `perMinute / 60` tokens per
 * second, a fraction a float cannot always hold; in these units it is `perMinute` per millisecond,
 * a whole number, so refills computed from elapsed milliseconds are exact and never drift.
 */
const UNITS_PER_TOKEN = 60_000;

const MS_PER_DAY = 86_400_000;

/** An API key in a usage plan: what an authorized request is counted under. */
export interface UsagePlanKey {
  /** The key's usage identifier. */
  readonly key: string;
  /** The key's limits, from which its plan's numbers follow (`usagePlanSettings`). */
  readonly limits: RequestLimits;
}

/**
 * The usage plan key of an authorized request, as the authorizer names it (API key source
 * AUTHORIZER): the key is `usageIdentifierKey`, else `principalId`; the limits are `perMinute`
 * and `perDay` of its context (strings once API Gateway has passed them on, numbers straight from
 * the handler).
 *
 * @returns `undefined` when the context carries no valid limits: deployed, such a key would be in
 *   no usage plan, which API Gateway refuses (INVALID_API_KEY).
 */
export function usagePlanKeyOf(result: AuthorizerResult): UsagePlanKey | undefined {
  const limits = limitsFromContext(result.context);
  return limits && { key: result.usageIdentifierKey ?? result.principalId, limits };
}

/** One key's bucket and quota. */
interface KeyUsage {
  /** Tokens in the bucket, in {@link UNITS_PER_TOKEN}ths, as of `updatedAt`. */
  units: number;
  /** Epoch ms of the last refill; never moves back. */
  updatedAt: number;
  /** UTC day (days since the epoch) that `used` counts. */
  day: number;
  /** Requests counted against the quota on `day`. */
  used: number;
}

/** The usage plans of one local gateway: a token bucket and a daily quota per key. */
export class UsagePlanEmulator {
  private readonly usage = new Map<string, KeyUsage>();

  /**
   * @param now Clock, epoch milliseconds (fractions are dropped); injected for tests.
   *   @default Date.now
   */
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Counts one request of a key against its usage plan, in API Gateway's order: the throttle
   * first, then the quota. A throttled request takes nothing from the quota; a request refused
   * for its quota has passed the throttle and keeps the token it took.
   *
   * @param key The key's usage identifier (the authorizer's `usageIdentifierKey`).
   * @param limits The key's limits, valid per `validateLimits`; the plan's numbers are
   *   `usagePlanSettings(limits)`. A key whose limits change keeps its state, its bucket capped
   *   at the new burst.
   * @returns `undefined` when the request is admitted, else the gateway response to answer with.
   */
  consume(key: string, limits: RequestLimits): UsagePlanRefusal | undefined {
    const { burstLimit, quotaPerDay } = usagePlanSettings(limits);
    const capacity = burstLimit * UNITS_PER_TOKEN;
    const nowMs = Math.floor(this.now());
    const day = Math.floor(nowMs / MS_PER_DAY);
    let usage = this.usage.get(key);
    if (!usage) {
      usage = { units: capacity, updatedAt: nowMs, day, used: 0 };
      this.usage.set(key, usage);
    }

    const elapsedMs = Math.max(0, nowMs - usage.updatedAt);
    usage.units = Math.min(capacity, usage.units + elapsedMs * limits.perMinute);
    usage.updatedAt += elapsedMs;
    if (day > usage.day) {
      usage.day = day;
      usage.used = 0;
    }

    if (usage.units < UNITS_PER_TOKEN) return 'THROTTLED';
    usage.units -= UNITS_PER_TOKEN;
    if (usage.used >= quotaPerDay) return 'QUOTA_EXCEEDED';
    usage.used += 1;
    return undefined;
  }
}
