/**
 * The key service's API Gateway side: each key's API key in its usage plan (the standard plan's, or
 * an Enterprise key's own), every change with its undo (docs/operations.md, "API keys").
 */
import {
  type APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  type PatchOperation,
  paginateGetUsagePlans,
  QuotaPeriodType,
  UpdateApiKeyCommand,
  UpdateUsagePlanCommand,
  type UsagePlan,
} from '@aws-sdk/client-api-gateway';
import type { ApiGatewayStep } from '../keys/admin-ports.ts';
import { ApiGatewayStepError } from '../keys/key-errors.ts';
import { type ApiKeyRecord, limitsOfKey } from '../keys/key-records.ts';
import type { UndoSteps } from '../keys/undo.ts';
import { API_STAGE_NAME } from '../paths.ts';
import {
  isStandardPlanId,
  PLAN_IDS,
  PLANS,
  type PlanId,
  planName,
  type RequestLimits,
  type StandardPlanId,
  usagePlanSettings,
} from '../plans.ts';

/** The stage's public API: its stack (which names Enterprise keys' own usage plans), RestApi and usage plans. */
export interface ApiGatewayTargets {
  readonly stackName: string;
  readonly restApiId: string;
  readonly usagePlanIds: Readonly<Record<StandardPlanId, string>>;
}

/** Where a key's API key belongs: its standard plan's usage plan, or an Enterprise key's own. */
export type UsagePlanDestination =
  | { readonly kind: 'shared'; readonly usagePlanId: string }
  | { readonly kind: 'own'; readonly stack: string; readonly restApiId: string };

/** Where the API key of a key on `plan` belongs on a stage. */
export function usagePlanDestination(
  plan: PlanId,
  { stackName, restApiId, usagePlanIds }: ApiGatewayTargets,
): UsagePlanDestination {
  return isStandardPlanId(plan)
    ? { kind: 'shared', usagePlanId: usagePlanIds[plan] }
    : { kind: 'own', stack: stackName, restApiId };
}

/** Name of a stack's usage plan of a standard plan, e.g. `petstore-staging-Free`. */
export function standardUsagePlanName(stack: string, plan: StandardPlanId): string {
  return `${stack}-${PLANS[plan].name}`;
}

/**
 * The targets of the stack `stackName` in `apiGateway`'s region (not the home region, whose stack
 * outputs the admin functions get), found by its usage plans' names; the RestApi is the Free plan's.
 * @throws ApiGatewayStepError naming what is missing: nothing was changed.
 */
export async function findStackTargets(
  apiGateway: APIGatewayClient,
  stackName: string,
): Promise<ApiGatewayTargets> {
  const byName = new Map<string, UsagePlan>();
  for await (const page of paginateGetUsagePlans({ client: apiGateway }, {})) {
    for (const usagePlan of page.items ?? []) byName.set(usagePlan.name ?? '', usagePlan);
  }
  const named = (plan: StandardPlanId) => byName.get(standardUsagePlanName(stackName, plan));
  const missing = PLAN_IDS.filter((plan) => !named(plan)?.id);
  const restApiId = named('free')?.apiStages?.[0]?.apiId;
  if (missing.length > 0 || restApiId === undefined) {
    const names = missing.map((plan) => standardUsagePlanName(stackName, plan));
    throw new ApiGatewayStepError(
      `Stack ${stackName} has no usage plan ${names.join(', ') || 'on an API stage'} in this region: nothing was changed.`,
    );
  }
  const usagePlanIds = Object.fromEntries(PLAN_IDS.map((plan) => [plan, named(plan)?.id]));
  return { stackName, restApiId, usagePlanIds: usagePlanIds as Record<StandardPlanId, string> };
}

/** A step as one region's API Gateway reports it, before its gateway adds the region. */
export type RegionStep = Omit<ApiGatewayStep, 'region'>;

/** A usage plan as GetUsagePlans returns it. */
export type ExistingUsagePlan = UsagePlan & { readonly id: string };

/** Name of an Enterprise key's own usage plan, e.g. `petstore-staging-enterprise-key_0123…`. */
export function ownUsagePlanName(stack: string, keyId: string): string {
  return `${stack}-enterprise-${keyId}`;
}

/**
 * Creates a stored key's API key (Enterprise: and its own usage plan) in its usage plan, each
 * step's undo in `undo`. @throws The client's error, the steps before it recorded.
 */
export async function registerApiKey(
  apiGateway: APIGatewayClient,
  record: ApiKeyRecord,
  destination: UsagePlanDestination,
  undo: UndoSteps,
): Promise<{ apiKeyId: string; usagePlanId: string }> {
  const { id: apiKeyId } = await apiGateway.send(
    new CreateApiKeyCommand({
      name: record.keyId,
      value: record.usageIdentifier,
      enabled: true,
      description: `Petstore ${planName(record.plan)} key${record.owner ? ` of ${record.owner}` : ''}`,
    }),
  );
  if (!apiKeyId) throw new Error('CreateApiKey returned no id');
  undo.add(`delete API Gateway API key ${apiKeyId}`, () =>
    apiGateway.send(new DeleteApiKeyCommand({ apiKey: apiKeyId })),
  );
  const usagePlanId =
    destination.kind === 'shared'
      ? destination.usagePlanId
      : await createOwnUsagePlan(apiGateway, destination, record, undo);
  await addToUsagePlan(apiGateway, apiKeyId, usagePlanId);
  return { apiKeyId, usagePlanId };
}

/** The API keys named after a key id, with whether each is enabled. */
export async function apiKeysNamed(
  apiGateway: APIGatewayClient,
  keyId: string,
): Promise<{ id: string; enabled: boolean }[]> {
  // nameQuery matches by prefix, hence the exact comparison.
  const { items = [] } = await apiGateway.send(new GetApiKeysCommand({ nameQuery: keyId }));
  return items.flatMap(({ id, name, enabled }) =>
    id && name === keyId ? [{ id, enabled: enabled === true }] : [],
  );
}

/** Ids of the API keys named after a key id; normally one. */
export async function apiKeyIdsNamed(
  apiGateway: APIGatewayClient,
  keyId: string,
): Promise<string[]> {
  return (await apiKeysNamed(apiGateway, keyId)).map(({ id }) => id);
}

/** The usage plans an API key is in (GetUsagePlans with a key filter, every page). */
export async function usagePlansOf(
  apiGateway: APIGatewayClient,
  apiKeyId: string,
): Promise<ExistingUsagePlan[]> {
  const usagePlans: ExistingUsagePlan[] = [];
  for await (const page of paginateGetUsagePlans({ client: apiGateway }, { keyId: apiKeyId })) {
    for (const usagePlan of page.items ?? []) {
      if (usagePlan.id) usagePlans.push({ ...usagePlan, id: usagePlan.id });
    }
  }
  return usagePlans;
}

/** Disables an API key: API Gateway refuses it even with a valid usage identifier. */
export async function disableApiKey(apiGateway: APIGatewayClient, apiKeyId: string): Promise<void> {
  await apiGateway.send(
    new UpdateApiKeyCommand({
      apiKey: apiKeyId,
      patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }],
    }),
  );
}

/** Deletes a usage plan that holds no API key any more. */
export async function deleteUsagePlan(
  apiGateway: APIGatewayClient,
  usagePlanId: string,
): Promise<void> {
  await apiGateway.send(new DeleteUsagePlanCommand({ usagePlanId }));
}

/** What moving a key's API key involves, looked up before anything changes. */
export interface ApiKeyMove {
  readonly apiKeyId: string;
  /** Normally one. */
  readonly from: readonly ExistingUsagePlan[];
  /** The key's own usage plan, when it is among `from` (an Enterprise key). */
  readonly ownPlan?: ExistingUsagePlan;
  readonly destination: UsagePlanDestination;
}

/**
 * Moves a key's API key into its new plan's usage plan (Enterprise: its own, created or updated),
 * out of the others first: API Gateway allows one usage plan per API stage. Each step's undo goes
 * into `undo`; deleting the own usage plan a key left is the caller's, once the move succeeded.
 * @param previous The key before the move: its limits are the undo of an updated own usage plan.
 * @returns The steps taken, in order.
 * @throws The client's error, the steps before it recorded.
 */
export async function moveApiKey(
  apiGateway: APIGatewayClient,
  { apiKeyId, from, ownPlan, destination }: ApiKeyMove,
  previous: ApiKeyRecord,
  record: ApiKeyRecord,
  undo: UndoSteps,
): Promise<RegionStep[]> {
  const steps: RegionStep[] = [];
  let usagePlanId: string;
  if (destination.kind === 'shared') {
    usagePlanId = destination.usagePlanId;
  } else if (ownPlan) {
    usagePlanId = ownPlan.id;
    await updateOwnUsagePlan(apiGateway, usagePlanId, record);
    undo.add(`restore the limits of usage plan ${usagePlanId}`, () =>
      updateOwnUsagePlan(apiGateway, ownPlan.id, previous),
    );
    steps.push({ step: 'updateUsagePlan', outcome: 'done', usagePlanId });
  } else {
    usagePlanId = await createOwnUsagePlan(apiGateway, destination, record, undo);
    const usagePlanName = ownUsagePlanName(destination.stack, record.keyId);
    steps.push({ step: 'createUsagePlan', outcome: 'done', usagePlanId, usagePlanName });
  }
  for (const { id: oldPlanId } of from) {
    if (oldPlanId === usagePlanId) continue;
    await apiGateway.send(
      new DeleteUsagePlanKeyCommand({ usagePlanId: oldPlanId, keyId: apiKeyId }),
    );
    undo.add(`put API Gateway API key ${apiKeyId} back in usage plan ${oldPlanId}`, () =>
      addToUsagePlan(apiGateway, apiKeyId, oldPlanId),
    );
    steps.push({
      step: 'removeFromUsagePlan',
      outcome: 'done',
      apiKeyId,
      usagePlanId: oldPlanId,
    });
  }
  if (!from.some(({ id }) => id === usagePlanId)) {
    await addToUsagePlan(apiGateway, apiKeyId, usagePlanId);
    // Undone when a later step fails: another region's, with several regions.
    undo.add(`remove API Gateway API key ${apiKeyId} from usage plan ${usagePlanId}`, () =>
      apiGateway.send(new DeleteUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId })),
    );
    steps.push({ step: 'addToUsagePlan', outcome: 'done', apiKeyId, usagePlanId });
  }
  return steps;
}

async function addToUsagePlan(
  apiGateway: APIGatewayClient,
  apiKeyId: string,
  usagePlanId: string,
): Promise<void> {
  await apiGateway.send(
    new CreateUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId, keyType: 'API_KEY' }),
  );
}

/** Description, throttle and daily quota of an Enterprise key's own usage plan. */
function ownUsagePlanSettings(keyId: string, limits: RequestLimits) {
  const { rateLimit, burstLimit, quotaPerDay } = usagePlanSettings(limits);
  return {
    description: `Enterprise key ${keyId}: ${limits.perMinute} requests per minute, ${limits.perDay} per day`,
    throttle: { rateLimit, burstLimit },
    quota: { limit: quotaPerDay, period: QuotaPeriodType.DAY },
  };
}

/** Creates an Enterprise key's own usage plan on the RestApi's stage, its deletion in `undo`. */
async function createOwnUsagePlan(
  apiGateway: APIGatewayClient,
  { stack, restApiId }: Extract<UsagePlanDestination, { kind: 'own' }>,
  record: ApiKeyRecord,
  undo: UndoSteps,
): Promise<string> {
  const { id } = await apiGateway.send(
    new CreateUsagePlanCommand({
      name: ownUsagePlanName(stack, record.keyId),
      ...ownUsagePlanSettings(record.keyId, limitsOfKey(record)),
      apiStages: [{ apiId: restApiId, stage: API_STAGE_NAME }],
    }),
  );
  if (!id) throw new Error('CreateUsagePlan returned no id');
  undo.add(`delete usage plan ${id}`, () => deleteUsagePlan(apiGateway, id));
  return id;
}

/** Gives a key's own usage plan the description, throttle and quota of the record's limits. */
async function updateOwnUsagePlan(
  apiGateway: APIGatewayClient,
  usagePlanId: string,
  record: ApiKeyRecord,
): Promise<void> {
  const { description, throttle, quota } = ownUsagePlanSettings(record.keyId, limitsOfKey(record));
  const values: [string, string | number][] = [
    ['/description', description],
    ['/throttle/rateLimit', throttle.rateLimit],
    ['/throttle/burstLimit', throttle.burstLimit],
    ['/quota/limit', quota.limit],
  ];
  const patchOperations = values.map(
    ([path, value]): PatchOperation => ({ op: 'replace', path, value: String(value) }),
  );
  await apiGateway.send(new UpdateUsagePlanCommand({ usagePlanId, patchOperations }));
}
