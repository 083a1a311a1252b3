/**
 * How the keys command writes keys, plans, counts and times for an operator: one module, so that
 * every subcommand says `Pro (300 requests/minute, 10,000 requests/day)` the same way.
 */
import { type ApiKeyRecord, limitsOfKey } from '../../../shared/keys/key-records.ts';
import { planName } from '../../../shared/plans.ts';
import type { AdminSchemas } from '../admin-api-client.ts';

/** A step of the admin API's `apiGateway` answer, as the document types it. */
type ApiGatewayStep = AdminSchemas['ApiGatewayStep'];

/** A count with thousands separators, e.g. `10,000`: the spec writes its limits this way. */
export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** A key's plan and limits, e.g. `Pro (300 requests/minute, 10,000 requests/day)`. */
export function describePlan(record: Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'>): string {
  const { perMinute, perDay } = limitsOfKey(record);
  return `${planName(record.plan)} (${formatCount(perMinute)} requests/minute, ${formatCount(perDay)} requests/day)`;
}

/**
 * The region of a step of the admin API's `apiGateway` answer, for a message: on a stage of
 * several regions its region, on one region nothing (`undefined`).
 */
export function regionOf(
  step: Pick<ApiGatewayStep, 'region'>,
  { regions }: Pick<AdminSchemas['ApiGatewaySteps'], 'regions'>,
): string | undefined {
  return regions.length > 1 ? step.region : undefined;
}

/** `<region>: ` before a line, or nothing on one region (see `regionOf`). */
export function regionPrefix(region: string | undefined): string {
  return region ? `${region}: ` : '';
}

/** ` in <region>` for a message, or nothing without a region. */
export function inRegion(region: string | undefined): string {
  return region ? ` in ${region}` : '';
}

/** What a step of the admin API's `apiGateway` answer did, once done, in its fields' words. */
const STEP_DONE: Readonly<Record<ApiGatewayStep['step'], (step: ApiGatewayStep) => string>> = {
  createApiKey: ({ apiKeyId }) => `created API Gateway API key ${apiKeyId}`,
  createUsagePlan: ({ usagePlanId, usagePlanName }) =>
    `created usage plan ${usagePlanId} (${usagePlanName})`,
  updateUsagePlan: ({ usagePlanId }) => `usage plan ${usagePlanId}: throttle and quota updated`,
  addToUsagePlan: ({ apiKeyId, usagePlanId }) =>
    `added API Gateway API key ${apiKeyId} to usage plan ${usagePlanId}`,
  removeFromUsagePlan: ({ apiKeyId, usagePlanId }) =>
    `removed API Gateway API key ${apiKeyId} from usage plan ${usagePlanId}`,
  deleteUsagePlan: ({ usagePlanId }) =>
    `deleted usage plan ${usagePlanId}, the key's own while it was on Enterprise`,
  disableApiKey: ({ apiKeyId }) => `disabled API Gateway API key ${apiKeyId}`,
};

/** A done step as a line, e.g. `added API Gateway API key abc to usage plan def`. */
export function describeStep(step: ApiGatewayStep): string {
  return STEP_DONE[step.step](step);
}

/** A done step as a sentence with its region: `Disabled API Gateway API key abc in us-west-2.` */
export function stepSentence(step: ApiGatewayStep, region: string | undefined): string {
  const text = describeStep(step);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${inRegion(region)}.`;
}
