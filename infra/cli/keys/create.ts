/**
 * `create`: issues a key (docs/api.md, "Authentication": how API keys are issued
 * it fills). On a stage the key also gets its API Gateway API key, in its plan's usage plan.
 */
import type { Scope } from '../../../shared/keys/scopes.ts';
import { PLAN_IDS } from '../../../shared/plans.ts';
import { UsageError } from '../program.ts';
import { registerApiKey, usagePlanDestination } from './api-gateway.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  parseStage,
  stageOption,
} from './command.ts';
import { addExpiryOptions, type ExpiryOptions, expiryChoice } from './expiry.ts';
import { describePlan } from './format.ts';
import { addPlanOptions, type PlanChoice, type PlanOptions, planChoice } from './plan-options.ts';
import { addScopeOption, describeScopes, type ScopeOptions, scopeChoice } from './scope.ts';
import { onKeysTable, openTarget, type Target } from './target.ts';
import { UndoSteps } from './undo.ts';

/** Characters that would break the one-line-per-key listing or a terminal. */
const CONTROL_CHARACTERS = /\p{Cc}/u;

/**
 * `create --plan P [--per-minute N --per-day N] [--owner TEXT] [--expires-…] [--scope S] [--stage S]`.
 */
export const create: KeysSubcommand = {
  forms: [
    `create --plan ${PLAN_IDS.join('|')} [--owner TEXT] [--expires-in DURATION|--expires-at TIME] [--scope SCOPE]`,
    'create --plan enterprise --per-minute N --per-day N [--owner TEXT] [--expires-in DURATION|--expires-at TIME] [--scope SCOPE]',
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
      .addOption(stageOption())
      .action(
        async (
          options: PlanOptions & ExpiryOptions & ScopeOptions & { owner?: string; stage?: string },
        ) => {
          const choice = planChoice('create', options);
          const owner = parseOwner(options.owner);
          const expiresAt = expiryChoice(options, Date.now());
          const scopes = scopeChoice(options);
          const target = await openTarget(parseStage(options.stage), dependencies);
          await createKey({ ...choice, owner, expiresAt, scopes }, target, dependencies);
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
 * Stores a new key and, on a stage, registers its API Gateway API key; prints a summary and, as
 * the LAST LINE OF STDOUT, the bearer token (`npm run keys -- create --plan free | tail -1`).
 *
 * On a stage the API key is named after the key id, its value the record's usage identifier
 * (never the token), in the plan's usage plan; an Enterprise key gets a usage plan of its own
 * (`registerApiKey`). If API Gateway fails, the key is revoked and everything made is deleted,
 * newest first (`UndoSteps`), and no token is printed.
 *
 * @throws Error when the stack lacks an output the plan needs (nothing is stored then), the keys
 *   table fails, or API Gateway refuses (after the undo, which the message lists).
 */
async function createKey(
  {
    plan,
    limits,
    owner,
    expiresAt,
    scopes,
  }: PlanChoice & {
    readonly owner?: string;
    readonly expiresAt?: string;
    readonly scopes?: readonly Scope[];
  },
  target: Target,
  { apiGateway, stdout }: KeysCommandDependencies,
): Promise<void> {
  // Resolve the usage plan before anything is stored, so that a missing output leaves nothing behind.
  const destination = target.deployed && usagePlanDestination(plan, target.deployed);
  const { record, token } = await onKeysTable(target, (keys) =>
    keys.createKey({ plan, owner, limits, expiresAt, scopes, tokenStage: target.tokenStage }),
  );
  stdout(`Issued key ${record.keyId} on ${target.description}`);
  stdout(`  plan:    ${describePlan(record)}`);
  stdout(`  owner:   ${record.owner ?? '-'}`);
  stdout(`  expires: ${record.expiresAt ?? 'never'}`);
  stdout(`  scopes:  ${describeScopes(record.scopes)}`);
  if (destination) {
    const undo = new UndoSteps();
    // The authorizer reads the keys table, so a revoked key is unusable whatever else fails.
    undo.add(`revoke key ${record.keyId}`, () =>
      onKeysTable(target, (keys) => keys.revokeKey(record.keyId)),
    );
    const { apiKeyId, usagePlanId } = await undo.run(
      () => registerApiKey(apiGateway, record, destination, undo),
      (failure, undone) =>
        new Error(
          `API Gateway refused the key (${failure.message}); undone: ${undone.join(', ')}. No usable key was issued.`,
          { cause: failure },
        ),
    );
    const own = destination.kind === 'own' ? 'its own ' : '';
    stdout(`  API Gateway API key ${apiKeyId}, in ${own}usage plan ${usagePlanId}`);
  }
  stdout('The bearer token below is shown once; only its SHA-256 is kept.');
  stdout(token);
}
