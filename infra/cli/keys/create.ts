/**
 * `create`: issues a key through the admin API's createKey (docs/api.md, "Authentication": how
 * API keys are issued). On a stage the key also gets its API Gateway API key, in its plan's usage
 * plan.
 */
import { PLAN_IDS } from '../../../shared/plans.ts';
import type { AdminSchemas } from '../admin-api-client.ts';
import { UsageError } from '../common/program.ts';
import { parseStage } from '../common/stage.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  reasonOf,
  reasonOption,
  stageOption,
} from './command.ts';
import { addExpiryOptions, type ExpiryOptions, expiryChoice } from './expiry.ts';
import { describePlan, regionOf, regionPrefix } from './format.ts';
import { addPlanOptions, type PlanOptions, planChoice } from './plan-options.ts';
import { addScopeOption, describeScopes, type ScopeOptions, scopeChoice } from './scope.ts';
import { dataOf, openTarget, type Target } from './target.ts';

/** Characters that would break the one-line-per-key listing or a terminal. */
const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * `create --plan P [--per-minute N --per-day N] [--owner TEXT] [--expires-…] [--scope S] [--stage S]`.
 */
export const create: KeysSubcommand = {
  forms: [
    `create --plan ${PLAN_IDS.join('|')} [--owner TEXT] [--expires-in DURATION|--expires-at TIME] [--scope SCOPE] [--reason TEXT]`,
    'create --plan enterprise --per-minute N --per-day N [--owner TEXT] [--expires-in DURATION|--expires-at TIME] [--scope SCOPE] [--reason TEXT]',
  ],
  register: (program, dependencies) =>
    addScopeOption(
      addExpiryOptions(
        addPlanOptions(
          program
            .command('create')
            .description(
              'Issue a key. Its bearer token is shown once, as the last line of stdout.',
            ),
        ).option(
          '--owner <text>',
          'Who the key is for: non-blank text without control characters.',
        ),
      ),
      'What the key may call (default: every scope):',
    )
      .addOption(reasonOption())
      .addOption(stageOption())
      .action(
        async (
          options: PlanOptions &
            ExpiryOptions &
            ScopeOptions & { owner?: string; stage?: string; reason?: string },
        ) => {
          const choice = planChoice('create', options);
          const owner = parseOwner(options.owner);
          const expiresAt = expiryChoice(options, Date.now());
          const scopes = scopeChoice(options);
          const target = await openTarget(parseStage(options.stage), dependencies);
          await createKey(
            { ...choice, owner, expiresAt, scopes, ...reasonOf(options) },
            target,
            dependencies,
          );
        },
      ),
};

/**
 * The owner given with `--owner`.
 *
 * @throws UsageError for blank text or text with control characters.
 */
function parseOwner(owner: string | undefined): string | undefined {
  if (owner !== undefined && (owner.trim() === '' || CONTROL_CHARACTERS.test(owner))) {
    throw new UsageError('--owner must be non-blank text without control characters.');
  }
  return owner;
}

/**
 * Issues the key through the admin API (createKey, audited as `key.created`); prints a summary
 * and, as the LAST LINE OF STDOUT, the bearer token (`npm run keys -- create --plan free | tail -1`).
 *
 * On a stage the admin API registers the key's API Gateway API key (named after the key id, its
 * value the key's usage identifier, never the token) in the plan's usage plan, or an Enterprise
 * key's own, before it stores the key, and undoes it when storing fails: no token is printed then.
 *
 * @throws Error with the admin API's message when it refuses (API Gateway refusing, with what
 *   was undone) or cannot be reached.
 */
async function createKey(
  request: AdminSchemas['NewKey'],
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const { key, token, apiGateway } = await dataOf(target.admin.POST('/keys', { body: request }));
  stdout(`Issued key ${key.keyId} on ${target.description}`);
  stdout(`  plan:    ${describePlan(key)}`);
  stdout(`  owner:   ${key.owner ?? '-'}`);
  stdout(`  expires: ${key.expiresAt ?? 'never'}`);
  stdout(`  scopes:  ${describeScopes(key.scopes)}`);
  for (const line of apiKeyLines(apiGateway)) stdout(`  ${line}`);
  stdout('The bearer token below is shown once; only its SHA-256 is kept.');
  stdout(token);
}

/**
 * A line per region for the API key a create made there, e.g. `API Gateway API key abc, in its
 * own usage plan def` (`us-west-2: …` on a stage of several regions).
 */
function apiKeyLines(apiGateway: AdminSchemas['ApiGatewaySteps']): string[] {
  const { steps } = apiGateway;
  return steps
    .filter(({ step }) => step === 'addToUsagePlan')
    .map((added) => {
      const own = steps.some(
        ({ step, region }) => step === 'createUsagePlan' && region === added.region,
      );
      return `${regionPrefix(regionOf(added, apiGateway))}API Gateway API key ${added.apiKeyId}, in ${own ? 'its own ' : ''}usage plan ${added.usagePlanId}`;
    });
}
