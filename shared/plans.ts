/**
 * The one table of plan numbers (petstore-spec.md, "Limits" > "Rate limits by plan").
 *
 * The CDK stack builds its API Gateway usage plans from it, the authorizer puts a key's limits in
 * its context from it, the local gateway emulator and the keys command read it; nothing else may
 * restate these numbers.
 */

/** A plan with fixed numbers, shared by every key on it (one API Gateway usage plan each). */
export type StandardPlanId = 'free' | 'pro' | 'business';

/** Identifier of a plan as stored on a key record: a standard plan, or Enterprise (custom numbers per key). */
export type PlanId = StandardPlanId | 'enterprise';

/** Request limits: requests per fixed UTC minute and per fixed UTC day. */
export interface RequestLimits {
  /** Requests allowed per UTC minute (60 s window). */
  readonly perMinute: number;
  /** Requests allowed per UTC day (86 400 s window). */
  readonly perDay: number;
}

/** A standard plan: its display name and limits. */
export interface PlanLimits extends RequestLimits {
  /** Display name, as the spec writes it. */
  readonly name: string;
}

/** Free, Pro and Business, as in the spec's table. */
export const PLANS: Readonly<Record<StandardPlanId, PlanLimits>> = {
  free: { name: 'Free', perMinute: 60, perDay: 1_000 },
  pro: { name: 'Pro', perMinute: 300, perDay: 10_000 },
  business: { name: 'Business', perMinute: 1_000, perDay: 100_000 },
};

/** The standard plan ids in the spec's order. */
export const PLAN_IDS = Object.keys(PLANS) as StandardPlanId[];

/** The plan whose numbers are set per key ("Enterprise: custom" in the spec). */
export const ENTERPRISE_PLAN = { id: 'enterprise', name: 'Enterprise' } as const;

/** Every plan id a key may have, Enterprise last. */
export const ALL_PLAN_IDS: readonly PlanId[] = [...PLAN_IDS, ENTERPRISE_PLAN.id];

/**
 * Largest custom limit per minute: what one counter item can count. Every admitted request writes
 * its key's item for the day once (1 WCU; the first of each minute twice), and DynamoDB serves at
 * most 1,000 write units per second on one partition key, so one item counts at most about 60,000
 * requests per minute; above it DynamoDB throttles the limiter's writes and the limiter fails open,
 * admitting requests uncounted. (API Gateway's default account throttle, 10,000 requests per
 * second, is the next ceiling.)
 */
export const MAX_PER_MINUTE = 60_000;

/** Largest custom limit per day (the per-minute maximum sustained for a day). */
export const MAX_PER_DAY = MAX_PER_MINUTE * 1_440;

/** Narrows a string (for example a CLI argument) to a {@link PlanId}, Enterprise included. */
export function isPlanId(value: string): value is PlanId {
  return (ALL_PLAN_IDS as readonly string[]).includes(value);
}

/** Narrows a {@link PlanId} to a standard plan. */
export function isStandardPlanId(value: string): value is StandardPlanId {
  return Object.hasOwn(PLANS, value);
}

/** Display name of a plan, e.g. `Free`, `Enterprise`. */
export function planName(plan: PlanId): string {
  return isStandardPlanId(plan) ? PLANS[plan].name : ENTERPRISE_PLAN.name;
}

/**
 * Checks custom (Enterprise) limits.
 *
 * @returns The limits, unchanged.
 * @throws RangeError unless both are whole numbers, `1 <= perMinute <= perDay`,
 *   `perMinute <= MAX_PER_MINUTE` and `perDay <= MAX_PER_DAY`.
 */
export function validateLimits(limits: RequestLimits): RequestLimits {
  const { perMinute, perDay } = limits;
  if (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > MAX_PER_MINUTE) {
    throw new RangeError(`per-minute limit must be a whole number from 1 to ${MAX_PER_MINUTE}`);
  }
  if (!Number.isInteger(perDay) || perDay < perMinute || perDay > MAX_PER_DAY) {
    throw new RangeError(
      `per-day limit must be a whole number from the per-minute limit (${perMinute}) to ${MAX_PER_DAY}`,
    );
  }
  return limits;
}

/**
 * Stored custom limits held to {@link MAX_PER_MINUTE} and {@link MAX_PER_DAY}: a key stored with a
 * higher figure before the ceiling was lowered is served at the ceiling, which is all the limiter
 * can count, instead of failing every request of its client.
 *
 * @returns The limits with each figure above its maximum replaced by the maximum.
 */
export function capLimits(limits: Partial<RequestLimits>): Partial<RequestLimits> {
  const cap = (value: number | undefined, max: number) =>
    value === undefined ? undefined : Math.min(value, max);
  return {
    perMinute: cap(limits.perMinute, MAX_PER_MINUTE),
    perDay: cap(limits.perDay, MAX_PER_DAY),
  };
}

/**
 * The limits an authorizer context carries (`perMinute`, `perDay`: numbers from the authorizer,
 * strings once API Gateway has passed them on to a function).
 *
 * @returns The limits, or `undefined` when either is missing or fails {@link validateLimits}.
 */
export function limitsFromContext(
  context: Readonly<Record<string, unknown>> | null | undefined,
): RequestLimits | undefined {
  const limits = { perMinute: Number(context?.perMinute), perDay: Number(context?.perDay) };
  try {
    return validateLimits(limits);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * The limits of a key on `plan`: the plan's own numbers for a standard plan, `custom` for Enterprise.
 *
 * @throws RangeError for Enterprise without valid custom limits.
 */
export function limitsOfPlan(plan: PlanId, custom?: Partial<RequestLimits>): RequestLimits {
  if (isStandardPlanId(plan))
    return { perMinute: PLANS[plan].perMinute, perDay: PLANS[plan].perDay };
  if (custom?.perMinute === undefined || custom.perDay === undefined) {
    throw new RangeError('an Enterprise key needs its own per-minute and per-day limits');
  }
  return validateLimits({ perMinute: custom.perMinute, perDay: custom.perDay });
}

/**
 * How far the edge backstop (API Gateway usage plan) sits above the function-level limits. Fixed
 * windows admit up to twice the per-minute figure across a minute boundary, and requests that the
 * functions answer with 429 still count at the edge; with this factor a client that keeps to its
 * limits is never throttled by API Gateway, which only catches what gets past the functions.
 */
export const BACKSTOP_FACTOR = 2;

/**
 * API Gateway usage-plan settings (the edge backstop) for a key's limits.
 *
 * @returns `rateLimit` in requests per second (per-minute / 60: the long-run rate), `burstLimit` in
 *   requests (per-minute × {@link BACKSTOP_FACTOR}) and `quotaPerDay` in requests per UTC day
 *   (per-day × {@link BACKSTOP_FACTOR}).
 */
export function usagePlanSettings(limits: RequestLimits): {
  rateLimit: number;
  burstLimit: number;
  quotaPerDay: number;
} {
  return {
    rateLimit: limits.perMinute / 60,
    burstLimit: limits.perMinute * BACKSTOP_FACTOR,
    quotaPerDay: limits.perDay * BACKSTOP_FACTOR,
  };
}
