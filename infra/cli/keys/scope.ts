/**
 * Scopes of keys (docs/api.md, "Scopes"): the `--scope` option of `create` and `set-scope`, and
 * the `set-scope` subcommand. A call outside a key's scopes is refused by API Gateway with 403
 * `insufficient_scope`.
 */
import { type Command, Option } from 'commander';
import type { ShownChange } from '../../../shared/keys/key-service.ts';
import { isScope, keyScopes, SCOPES, type Scope } from '../../../shared/keys/scopes.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../routes.ts';
import { UsageError } from '../common/program.ts';
import { parseStage } from '../common/stage.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  keyIdCommand,
  reasonOf,
  reasonOption,
} from './command.ts';
import { callAdmin, openTarget, type Target } from './target.ts';

/** The `--scope` option as commander collects it: every value given, split at commas, unchecked. */
export interface ScopeOptions {
  readonly scope?: readonly string[];
}

/** `pets:read,pets:write`: a key's scopes as `list` and the other subcommands print them. */
export function describeScopes(scopes: readonly Scope[]): string {
  return scopes.join(',');
}

/** Adds `--scope <scope>` to a subcommand: repeatable, or comma-separated. */
export function addScopeOption(command: Command, description: string): Command {
  return command.addOption(
    new Option(
      '--scope <scope>',
      `${description} ${SCOPES.join('|')}, repeatable or comma-separated; pets:write includes pets:read.`,
    ).argParser((value: string, previous: readonly string[] = []) => [
      ...previous,
      ...value.split(','),
    ]),
  );
}

/**
 * The scopes that `--scope` asks for, as a key stores them (`keyScopes`), or `undefined` when it
 * is not given.
 *
 * @throws UsageError for a name that is no scope (naming the valid ones).
 */
export function scopeChoice({ scope }: ScopeOptions): Scope[] | undefined {
  if (scope === undefined) return undefined;
  const unknown = scope.find((name) => !isScope(name));
  if (unknown !== undefined) {
    throw new UsageError(`Unknown scope "${unknown}": use ${SCOPES.join(', ')}.`);
  }
  return keyScopes(scope as Scope[]);
}

/** `set-scope <key-id> --scope S [--scope S] [--reason TEXT] [--stage S]`. */
export const setScope: KeysSubcommand = {
  forms: [`set-scope <key-id> --scope ${SCOPES.join('|')}[,…] [--reason TEXT]`],
  register: (program, dependencies) =>
    addScopeOption(
      keyIdCommand(program, 'set-scope', 'Set what a key may call, on every token of it.'),
      "The key's scopes:",
    )
      .addOption(reasonOption())
      .action(
        async (keyId: string, options: ScopeOptions & { stage?: string; reason?: string }) => {
          const scopes = scopeChoice(options);
          if (!scopes) throw new UsageError(`set-scope needs --scope ${SCOPES.join('|')}.`);
          const target = await openTarget(parseStage(options.stage), dependencies);
          await changeScopes(keyId, { scopes, ...reasonOf(options) }, target, dependencies);
        },
      ),
};

/**
 * Sets the key's scopes on every token of it through the admin API (setKeyScopes, audited as
 * `key.scope_changed`) and says what changed.
 *
 * @throws Error for an unknown key id or an admin API that fails or cannot be reached.
 */
async function changeScopes(
  keyId: string,
  { scopes, reason }: { readonly scopes: readonly Scope[]; readonly reason?: string },
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const changed = await callAdmin<ShownChange>(target, {
    method: 'PUT',
    path: ['keys', keyId, 'scopes'],
    body: { scopes, ...(reason !== undefined && { reason }) },
  });
  stdout(`Key ${keyId} on ${target.description}`);
  stdout(`  scopes: ${describeScopes(changed.previous.scopes)} -> ${describeScopes(scopes)}`);
  stdout(
    `Requests see the change when the authorizer's cached result expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.`,
  );
}
