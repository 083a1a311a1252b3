/**
 * The one table of plan numbers (petstore-spec.md, "Limits" > "Rate limits by plan").
 *
 * The CDK stack builds its API Gateway usage plans from it, the local gateway
 * emulator and the keys command read it; nothing else may restate these numbers.
 */

/** Identifier of a plan as stored on a key record and passed in the authorizer context. */
export type PlanId = 'free' | 'pro' | 'business';

/** Request limits of one plan: requests per fixed UTC minute and per fixed UTC day. */
export interface PlanLimits {
  /** Display name, as the spec writes it. */
  readonly name: string;
  /** Requests allowed per minute (60 s window). */
  readonly perMinute: number;
  /** Requests allowed per UTC day (86 400 s window). */
  readonly perDay: number;
}

/** Free, Pro and Business, as in the spec's table. Enterprise (custom numbers) comes with rate limiting. */
export const PLANS: Readonly<Record<PlanId, PlanLimits>> = {
  free: { name: 'Free', perMinute: 60, perDay: 1_000 },
  pro: { name: 'Pro', perMinute: 300, perDay: 10_000 },
  business: { name: 'Business', perMinute: 1_000, perDay: 100_000 },
};

/** The plan ids in the spec's order. */
export const PLAN_IDS = Object.keys(PLANS) as PlanId[];

/** Narrows a string (for example a CLI argument) to a {@link PlanId}. */
export function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(PLANS, value);
}

/**
 * API Gateway usage-plan settings derived from a plan (the edge backstop).
 *
 * @returns `rateLimit` in requests per second (per-minute / 60), `burstLimit` in requests
 *   (the per-minute figure) and `quotaPerDay` in requests per UTC day.
 */
export function usagePlanSettings(plan: PlanLimits): {
  rateLimit: number;
  burstLimit: number;
  quotaPerDay: number;
} {
  return { rateLimit: plan.perMinute / 60, burstLimit: plan.perMinute, quotaPerDay: plan.perDay };
}
