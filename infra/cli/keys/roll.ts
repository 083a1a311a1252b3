/**
 * `roll`: replaces a key's bearer token with a new one of the same key (same id, plan, limits,
 * scopes, owner, expiry, ban and counters, and on a stage the same API Gateway API key), the old token
 * kept working for a grace period. Design: docs/operations.md, "Rolling a key".
 */
import { Option } from 'commander';
import { DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS } from '../../../shared/keys/admin-schemas.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../routes.ts';
import { parseStage } from '../common/stage.ts';
import {
  type KeysCommandDependencies,
  type KeysSubcommand,
  keyIdCommand,
  reasonOf,
  reasonOption,
} from './command.ts';
import { DURATION_FORMAT, durationParser } from './duration.ts';
import { dataOf, openTarget, type Target } from './target.ts';

/** `roll <key-id> [--grace DURATION] [--reason TEXT] [--stage S]`. */
export const roll: KeysSubcommand = {
  forms: ['roll <key-id> [--grace DURATION] [--reason TEXT]'],
  register: (program, dependencies) =>
    keyIdCommand(
      program,
      'roll',
      'Issue a new token for the same key; the old one works for the grace. The token is the last line of stdout.',
    )
      .addOption(
        new Option(
          '--grace <duration>',
          `How long the old token keeps working: ${DURATION_FORMAT}, at most 30d; 0 ends it at once (default: 24h).`,
        ).argParser(durationParser(MAX_GRACE_SECONDS, '30d')),
      )
      .addOption(reasonOption())
      .action(
        async (keyId: string, options: { grace?: number; stage?: string; reason?: string }) => {
          const target = await openTarget(parseStage(options.stage), dependencies);
          const graceSeconds = options.grace ?? DEFAULT_GRACE_SECONDS;
          await rollKey(keyId, { graceSeconds, ...reasonOf(options) }, target, dependencies);
        },
      ),
};

/**
 * Rolls the key through the admin API (rollKey: one transaction of the keys table with its
 * `key.rolled` entry); prints what happened and, as the LAST LINE OF STDOUT, the new token. A
 * token still in an earlier grace is ended first: at most two tokens of a key work at once.
 *
 * @throws Error for an unknown or revoked key, a concurrent change (nothing changed), or an
 *   admin API that fails or cannot be reached.
 */
async function rollKey(
  keyId: string,
  body: { readonly graceSeconds: number; readonly reason?: string },
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const rolled = await dataOf(
    target.admin.POST('/keys/{keyId}/roll', { params: { path: { keyId } }, body }),
  );
  stdout(`Rolled key ${keyId} on ${target.description}`);
  stdout(
    rolled.graceUntil
      ? `  old token: works until ${rolled.graceUntil}, then 401 (within ${AUTHORIZER_CACHE_TTL_SECONDS} s)`
      : `  old token: refused from now on (within ${AUTHORIZER_CACHE_TTL_SECONDS} s)`,
  );
  stdout('  same key id, plan, limits, scopes, owner, expiry, counters and usage plan key');
  stdout('The new bearer token below is shown once; only its SHA-256 is kept.');
  stdout(rolled.token);
}
