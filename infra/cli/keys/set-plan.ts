/**
 * `set-plan`: moves a key to another plan, or gives an Enterprise key new limits
 * (docs/rate-limits.md). On a stage its API Gateway API key moves between usage plans.
 */
import type { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { type ApiKeyRecord, limitsOfKey } from '../../../shared/keys/key-records.ts';
import {
  isStandardPlanId,
  PLAN_IDS,
  type PlanId,
  planName,
  type RequestLimits,
} from '../../../shared/plans.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../routes.ts';
import {
  type ApiKeyMove,
  apiKeyIdsNamed,
  deleteUsagePlan,
  moveApiKey,
  ownUsagePlanName,
  usagePlanDestination,
  usagePlansOf,
} from './api-gateway.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  keyIdCommand,
  parseStage,
} from './command.ts';
import { describePlan } from './format.ts';
import { addPlanOptions, type PlanChoice, type PlanOptions, planChoice } from './plan-options.ts';
import { type Deployment, onKeysTable, openTarget, type Target, unknownKey } from './target.ts';
import { UndoSteps } from './undo.ts';

/** `set-plan <key-id> --plan P [--per-minute N --per-day N] [--stage S]`. */
export const setPlan: KeysSubcommand = {
  forms: [
    `set-plan <key-id> --plan ${PLAN_IDS.join('|')}`,
    'set-plan <key-id> --plan enterprise --per-minute N --per-day N',
  ],
  register: (program, dependencies) =>
    addPlanOptions(
      keyIdCommand(
        program,
        'set-plan',
        'Move a key to another plan, or give an Enterprise key new limits.',
      ),
    ).action(async (keyId: string, options: PlanOptions & { stage?: string }) => {
      const choice = planChoice('set-plan', options);
      const target = await openTarget(parseStage(options.stage), dependencies);
      await movePlan(keyId, choice, target, dependencies);
    }),
};

/** A key's own limits, which only an Enterprise key has: what an undo needs to put it back. */
export function customLimitsOf(record: ApiKeyRecord): RequestLimits | undefined {
  return isStandardPlanId(record.plan) ? undefined : limitsOfKey(record);
}

/**
 * Changes the stored key's plan and, on a stage, moves its API key from its usage plan to the new
 * plan's (`moveApiKey`), then deletes the key's own usage plan when it has left Enterprise.
 * Everything the stage needs is looked up before anything changes; if API Gateway fails half-way,
 * every step is undone, newest first, the stored plan last (`UndoSteps`).
 *
 * @throws Error for an unknown or revoked key, a missing stack output, an API key missing or
 *   ambiguous (nothing changed then), API Gateway refusing the move (after the undo, which
 *   the message lists), or refusing to delete the old own usage plan (the move stands then, and
 *   the message says how to delete it).
 */
async function movePlan(
  keyId: string,
  { plan, limits }: PlanChoice,
  target: Target,
  { apiGateway, stdout }: KeysCommandDependencies,
): Promise<void> {
  const current = await onKeysTable(target, (keys) => keys.findById(keyId));
  if (!current) throw unknownKey(keyId, target);
  if (current.revokedAt) {
    throw new Error(
      `Key ${keyId} was revoked at ${current.revokedAt}; a revoked key keeps its plan.`,
    );
  }
  const move =
    target.deployed && (await lookUpApiKeyMove(apiGateway, keyId, plan, target.deployed));
  const changed = await onKeysTable(target, (keys) => keys.setPlan(keyId, plan, limits));
  if (!changed) throw unknownKey(keyId, target);
  const { previous, record } = changed;
  const undo = new UndoSteps();
  undo.add(`put key ${keyId} back on ${planName(previous.plan)}`, () =>
    onKeysTable(target, (keys) => keys.setPlan(keyId, previous.plan, customLimitsOf(previous))),
  );
  const moved = move
    ? await undo.run(
        () => moveApiKey(apiGateway, move, previous, record, undo),
        (failure, undone) =>
          new Error(
            `API Gateway refused the move (${failure.message}); undone: ${undone.join(', ')}. Key ${keyId} stays on ${describePlan(previous)}.`,
            { cause: failure },
          ),
      )
    : [];
  stdout(`Moved key ${keyId} on ${target.description}`);
  stdout(`  from: ${describePlan(previous)}`);
  stdout(`  to:   ${describePlan(record)}`);
  for (const line of moved) stdout(`  ${line}`);
  stdout(
    `Requests with the key get the new limits when the authorizer's cached result expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.`,
  );
  if (move?.ownPlan && move.destination.kind === 'shared') {
    await deleteOwnUsagePlan(apiGateway, keyId, move.ownPlan.id, stdout);
  }
}

/**
 * Looks up what moving a key's API key to `plan` involves: the API key (exactly one must be
 * named after the key), the usage plans it is in, among them the key's own, and the destination.
 *
 * @throws Error when the stack lacks an output or the API key is missing or ambiguous.
 */
async function lookUpApiKeyMove(
  apiGateway: APIGatewayClient,
  keyId: string,
  plan: PlanId,
  deployment: Deployment,
): Promise<ApiKeyMove> {
  const destination = usagePlanDestination(plan, deployment);
  const apiKeyIds = await apiKeyIdsNamed(apiGateway, keyId);
  const [apiKeyId] = apiKeyIds;
  if (apiKeyId === undefined || apiKeyIds.length > 1) {
    throw new Error(
      `Key ${keyId} needs exactly one API Gateway API key named after it, and there are ${apiKeyIds.length}: nothing was changed.`,
    );
  }
  const from = await usagePlansOf(apiGateway, apiKeyId);
  const ownName = ownUsagePlanName(deployment.stack, keyId);
  return { apiKeyId, from, ownPlan: from.find(({ name }) => name === ownName), destination };
}

/**
 * Deletes the own usage plan of a key that has left Enterprise (the API key is out of it by then).
 *
 * @throws Error when API Gateway refuses: the move itself stands, only an empty usage plan is
 *   left, which the message says how to delete.
 */
async function deleteOwnUsagePlan(
  apiGateway: APIGatewayClient,
  keyId: string,
  usagePlanId: string,
  stdout: (line: string) => void,
): Promise<void> {
  try {
    await deleteUsagePlan(apiGateway, usagePlanId);
  } catch (error) {
    throw new Error(
      `Key ${keyId} has moved, but its old usage plan ${usagePlanId} could not be deleted (${(error as Error).message}): delete it with \`aws apigateway delete-usage-plan --usage-plan-id ${usagePlanId}\`.`,
      { cause: error },
    );
  }
  stdout(`Deleted usage plan ${usagePlanId}, the key's own while it was on Enterprise.`);
}
