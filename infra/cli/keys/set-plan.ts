/**
 * `set-plan`: moves a key to another plan, or gives an Enterprise key new limits
 * (docs/rate-limits.md), through the admin API (setKeyPlan, audited as `key.plan_changed`). On a
 * stage the admin API moves its API Gateway API key between usage plans.
 */
import { PLAN_IDS } from '../../../shared/plans.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../routes.ts';
import type { AdminRequestBody, AdminSchemas } from '../admin-api-client.ts';
import { parseStage } from '../common/stage.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  keyIdCommand,
  reasonOf,
  reasonOption,
} from './command.ts';
import {
  describePlan,
  describeStep,
  inRegion,
  regionOf,
  regionPrefix,
  stepSentence,
} from './format.ts';
import { addPlanOptions, type PlanOptions, planChoice } from './plan-options.ts';
import { dataOf, openTarget, type Target } from './target.ts';

/** `set-plan <key-id> --plan P [--per-minute N --per-day N] [--reason TEXT] [--stage S]`. */
export const setPlan: KeysSubcommand = {
  forms: [
    `set-plan <key-id> --plan ${PLAN_IDS.join('|')} [--reason TEXT]`,
    'set-plan <key-id> --plan enterprise --per-minute N --per-day N [--reason TEXT]',
  ],
  register: (program, dependencies) =>
    addPlanOptions(
      keyIdCommand(
        program,
        'set-plan',
        'Move a key to another plan, or give an Enterprise key new limits.',
      ),
    )
      .addOption(reasonOption())
      .action(async (keyId: string, options: PlanOptions & { stage?: string; reason?: string }) => {
        const choice = planChoice('set-plan', options);
        const target = await openTarget(parseStage(options.stage), dependencies);
        await movePlan(keyId, { ...choice, ...reasonOf(options) }, target, dependencies);
      }),
};

/**
 * Changes the key's plan and prints what changed: the plans before and after, then each of API
 * Gateway's steps on a stage, the deletion of an Enterprise key's own usage plan last.
 *
 * @throws Error for an unknown or revoked key, API Gateway refusing the move (after the undo,
 *   which the message lists), an admin API that fails or cannot be reached, or API Gateway
 *   refusing to delete the old own usage plan (the move stands then, and the message says how).
 */
async function movePlan(
  keyId: string,
  request: AdminRequestBody<'setKeyPlan'>,
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const { previous, key, apiGateway } = await dataOf(
    target.admin.PUT('/keys/{keyId}/plan', { params: { path: { keyId } }, body: request }),
  );
  stdout(`Moved key ${keyId} on ${target.description}`);
  stdout(`  from: ${describePlan(previous)}`);
  stdout(`  to:   ${describePlan(key)}`);
  const isDeletion = ({ step }: AdminSchemas['ApiGatewayStep']) => step === 'deleteUsagePlan';
  for (const step of apiGateway.steps.filter((each) => !isDeletion(each))) {
    stdout(`  ${regionPrefix(regionOf(step, apiGateway))}${describeStep(step)}`);
  }
  stdout(
    `Requests with the key get the new limits when the authorizer's cached result expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.`,
  );
  const failures: string[] = [];
  for (const step of apiGateway.steps.filter(isDeletion)) {
    const region = regionOf(step, apiGateway);
    if (step.outcome === 'failed') {
      failures.push(
        `its old usage plan ${step.usagePlanId}${inRegion(region)} could not be deleted (${step.error?.message}): delete it with \`aws apigateway delete-usage-plan --usage-plan-id ${step.usagePlanId}\``,
      );
    } else stdout(stepSentence(step, region));
  }
  if (failures.length > 0) throw new Error(`Key ${keyId} has moved, but ${failures.join('; ')}.`);
}
