/**
 * Scopes of keys (docs/api.md, "Scopes"): the `--scope` option of `create` and `set-scope`, and
 * the `set-scope` subcommand. A call outside a key's scopes is refused by API Gateway with 403
 * `insufficient_scope`.
 */
import { type Command, Option } from 'commander';
import { isScope, keyScopes, SCOPES, type Scope } from '../../../shared/keys/scopes.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../routes.ts';
import { UsageError } from '../program.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  keyIdCommand,
  parseStage,
} from './command.ts';
import { onKeysTable, openTarget, type Target, unknownKey } from './target.ts';

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

/** `set-scope <key-id> --scope S [--scope S] [--stage S]`. */
export const setScope: KeysSubcommand = {
  forms: [`set-scope <key-id> --scope ${SCOPES.join('|')}[,…]`],
  register: (program, dependencies) =>
    addScopeOption(
      keyIdCommand(program, 'set-scope', 'Set what a key may call, on every token of it.'),
      "The key's scopes:",
    ).action(async (keyId: string, options: ScopeOptions & { stage?: string }) => {
      const scopes = scopeChoice(options);
      if (!scopes) throw new UsageError(`set-scope needs --scope ${SCOPES.join('|')}.`);
      const target = await openTarget(parseStage(options.stage), dependencies);
      await changeScopes(keyId, scopes, target, dependencies);
    }),
};

/**
 * Sets the key's scopes on every token of it and says what changed.
 *
 * @throws Error for an unknown key id or a failing keys table.
 */
async function changeScopes(
  keyId: string,
  scopes: readonly Scope[],
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const changed = await onKeysTable(target, (keys) => keys.setScopes(keyId, scopes));
  if (!changed) throw unknownKey(keyId, target);
  stdout(`Key ${keyId} on ${target.description}`);
  stdout(`  scopes: ${describeScopes(changed.previous.scopes)} -> ${describeScopes(scopes)}`);
  stdout(
    `Requests see the change when the authorizer's cached result expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.`,
  );
}
