/**
 * `set-plan`: moves a key to another plan, or gives an Enterprise key new limits
 * (docs/rate-limits.md), through the admin API (setKeyPlan, audited as `key.plan_changed`). On a
 * stage the admin API moves its API Gateway API key between usage plans.
 */
import type { ShownChange } from '../../../shared/keys/key-service.ts';
import { PLAN_IDS } from '../../../shared/plans.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../routes.ts';
import { parseStage } from '../common/stage.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  keyIdCommand,
  reasonOf,
  reasonOption,
} from './command.ts';
import { describePlan, inRegion, regionLine } from './format.ts';
import { addPlanOptions, type PlanChoice, type PlanOptions, planChoice } from './plan-options.ts';
import { callAdmin, openTarget, type Target } from './target.ts';

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

/** How the admin API reports an old own usage plan it could not delete (the move stands). */
const DELETE_FAILED = /^FAILED to delete the old usage plan (\S+) \((.*)\): (delete it with .*)$/;

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
  request: PlanChoice & { readonly reason?: string },
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const { previous, key, apiGateway } = await callAdmin<ShownChange>(target, {
    method: 'PUT',
    path: ['keys', keyId, 'plan'],
    body: request,
  });
  stdout(`Moved key ${keyId} on ${target.description}`);
  stdout(`  from: ${describePlan(previous)}`);
  stdout(`  to:   ${describePlan(key)}`);
  const isDeletion = (line: string) =>
    /usage plan \S+, the key's own|^FAILED/.test(regionLine(line).text);
  const [moves, deletions] = [
    apiGateway.filter((line) => !isDeletion(line)),
    apiGateway.filter(isDeletion).map(regionLine),
  ];
  for (const line of moves) stdout(`  ${line}`);
  stdout(
    `Requests with the key get the new limits when the authorizer's cached result expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.`,
  );
  const failures: string[] = [];
  for (const { region, text } of deletions) {
    const failed = DELETE_FAILED.exec(text);
    if (failed) {
      failures.push(
        `its old usage plan ${failed[1]}${inRegion(region)} could not be deleted (${failed[2]}): ${failed[3]}`,
      );
    } else stdout(`${text.charAt(0).toUpperCase()}${text.slice(1)}${inRegion(region)}.`);
  }
  if (failures.length > 0) throw new Error(`Key ${keyId} has moved, but ${failures.join('; ')}.`);
}
