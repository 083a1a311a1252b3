/** The one table of plan numbers (docs/rate-limits.md); nothing else restates them. */

/** A plan with fixed numbers and one API Gateway usage plan, shared by every key on it. */
export type StandardPlanId = 'free' | 'pro' | 'business';

/** A standard plan, or Enterprise (numbers per key). */
export type PlanId = StandardPlanId | 'enterprise';

/** Requests allowed per fixed UTC minute (60 s) and per fixed UTC day (86 400 s). */
export interface RequestLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** A standard plan: its display name (e.g. `Free`) and limits. */
export interface PlanLimits extends RequestLimits {
  readonly name: string;
}

export const PLANS: Readonly<Record<StandardPlanId, PlanLimits>> = {
  free: { name: 'Free', perMinute: 60, perDay: 1_000 },
  pro: { name: 'Pro', perMinute: 300, perDay: 10_000 },
  business: { name: 'Business', perMinute: 1_000, perDay: 100_000 },
};

export const PLAN_IDS = Object.keys(PLANS) as StandardPlanId[];

/** The plan whose numbers are set per key. */
export const ENTERPRISE_PLAN = { id: 'enterprise', name: 'Enterprise' } as const;

/** Every plan id a key may have, Enterprise last. */
export const ALL_PLAN_IDS: readonly PlanId[] = [...PLAN_IDS, ENTERPRISE_PLAN.id];

/** Largest custom per-minute limit: 10,000 requests/s (why: docs/rate-limits.md). */
export const MAX_PER_MINUTE = 600_000;

/** The per-minute maximum sustained for a whole UTC day. */
export const MAX_PER_DAY = MAX_PER_MINUTE * 1_440;

/** Whether `value` is a plan id, Enterprise included. */
export function isPlanId(value: string): value is PlanId {
  return (ALL_PLAN_IDS as readonly string[]).includes(value);
}

export function isStandardPlanId(value: string): value is StandardPlanId {
  return Object.hasOwn(PLANS, value);
}

/** Display name of a plan, e.g. `Free`, `Enterprise`. */
export function planName(plan: PlanId): string {
  return isStandardPlanId(plan) ? PLANS[plan].name : ENTERPRISE_PLAN.name;
}

/** Limits that do not fit their plan (the admin API's 400 `invalid_body`). */
export class InvalidLimitsError extends Error {
  override readonly name = 'InvalidLimitsError';
}

/** @throws InvalidLimitsError unless whole numbers, `1 <= perMinute <= perDay`, each at most its maximum. */
export function validateLimits(limits: RequestLimits): RequestLimits {
  const { perMinute, perDay } = limits;
  if (!Number.isInteger(perMinute) || perMinute < 1 || perMinute > MAX_PER_MINUTE) {
    throw new InvalidLimitsError(
      `per-minute limit must be a whole number from 1 to ${MAX_PER_MINUTE}`,
    );
  }
  if (!Number.isInteger(perDay) || perDay < perMinute || perDay > MAX_PER_DAY) {
    throw new InvalidLimitsError(
      `per-day limit must be a whole number from the per-minute limit (${perMinute}) to ${MAX_PER_DAY}`,
    );
  }
  return limits;
}

/** The limits of an authorizer context (numbers, or strings); `undefined` unless valid. */
export function limitsFromContext(
  context: Readonly<Record<string, unknown>> | null | undefined,
): RequestLimits | undefined {
  const limits = { perMinute: Number(context?.perMinute), perDay: Number(context?.perDay) };
  try {
    return validateLimits(limits);
  } catch (error) {
    if (error instanceof InvalidLimitsError) return undefined;
    throw error;
  }
}

/**
 * The limits of a key on `plan`: a standard plan's, or `custom` for Enterprise.
 * @throws InvalidLimitsError for Enterprise without valid custom limits.
 */
export function limitsOfPlan(plan: PlanId, custom?: Partial<RequestLimits>): RequestLimits {
  if (isStandardPlanId(plan))
    return { perMinute: PLANS[plan].perMinute, perDay: PLANS[plan].perDay };
  if (custom?.perMinute === undefined || custom.perDay === undefined) {
    throw new InvalidLimitsError('an Enterprise key needs its own per-minute and per-day limits');
  }
  return validateLimits({ perMinute: custom.perMinute, perDay: custom.perDay });
}

/** How far the usage plan (edge backstop) sits above the functions' limits (docs/rate-limits.md). */
export const BACKSTOP_FACTOR = 2;

/**
 * API Gateway usage-plan settings (the edge backstop) for a key's limits: `rateLimit` (requests/s)
 * and, × {@link BACKSTOP_FACTOR}, `burstLimit` and `quotaPerDay` (requests per UTC day).
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
