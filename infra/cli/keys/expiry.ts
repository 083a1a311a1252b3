/**
 * Expiry of keys: the `--expires-in`/`--expires-at` options of `create` and `set-expiry`, and the
 * `set-expiry` subcommand. An expired key is refused like a revoked one (401).
 */
import { type Command, Option } from 'commander';
import type { ShownChange } from '../../../shared/keys/key-service.ts';
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
import { DURATION_FORMAT, durationParser, parseInstant } from './duration.ts';
import { callAdmin, openTarget, type Target } from './target.ts';

/** Longest `--expires-in`: ten years. */
const MAX_EXPIRES_IN_SECONDS = 3_650 * 86_400;

/** The expiry options as commander parses them. */
export interface ExpiryOptions {
  /** Seconds from now (`--expires-in`). */
  readonly expiresIn?: number;
  /** ISO 8601 in UTC (`--expires-at`). */
  readonly expiresAt?: string;
}

/** Adds `--expires-in <duration>` and `--expires-at <time>` to a subcommand. */
export function addExpiryOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--expires-in <duration>',
        `Expire the key after this long: ${DURATION_FORMAT}, at most 3650d.`,
      )
        .argParser(durationParser(MAX_EXPIRES_IN_SECONDS, '3650d'))
        .conflicts('expiresAt'),
    )
    .addOption(
      new Option(
        '--expires-at <time>',
        'Expire the key at this ISO 8601 time, e.g. 2027-01-01T00:00Z.',
      ).argParser(parseInstant),
    );
}

/**
 * The expiry that the options ask for.
 *
 * @param nowMs Epoch milliseconds.
 * @returns ISO 8601 in UTC, or `undefined` when neither option is given.
 * @throws UsageError for a time that is not in the future.
 */
export function expiryChoice(
  { expiresIn, expiresAt }: ExpiryOptions,
  nowMs: number,
): string | undefined {
  if (expiresIn !== undefined) {
    if (expiresIn === 0) throw new UsageError('--expires-in must be longer than 0.');
    return new Date(nowMs + expiresIn * 1000).toISOString();
  }
  if (expiresAt !== undefined && Date.parse(expiresAt) <= nowMs) {
    throw new UsageError(`--expires-at ${expiresAt} is not in the future.`);
  }
  return expiresAt;
}

/** `set-expiry <key-id> --expires-in D|--expires-at T|--never [--reason TEXT] [--stage S]`. */
export const setExpiry: KeysSubcommand = {
  forms: ['set-expiry <key-id> --expires-in DURATION|--expires-at TIME|--never [--reason TEXT]'],
  register: (program, dependencies) =>
    addExpiryOptions(
      keyIdCommand(
        program,
        'set-expiry',
        'Set when a key expires (every token of it), or --never.',
      ),
    )
      .addOption(
        new Option('--never', 'The key never expires.').conflicts(['expiresIn', 'expiresAt']),
      )
      .addOption(reasonOption())
      .action(
        async (
          keyId: string,
          options: ExpiryOptions & { never?: boolean; stage?: string; reason?: string },
        ) => {
          const expiresAt = expiryChoice(options, Date.now());
          if (!expiresAt && !options.never) {
            throw new UsageError(
              'set-expiry needs --expires-in DURATION, --expires-at TIME or --never.',
            );
          }
          const target = await openTarget(parseStage(options.stage), dependencies);
          await changeExpiry(keyId, expiresAt, reasonOf(options), target, dependencies);
        },
      ),
};

/**
 * Sets or removes the key's expiry on every token of it through the admin API (setKeyExpiry,
 * audited as `key.expiry_set`) and says what changed.
 *
 * @throws Error for an unknown key id or an admin API that fails or cannot be reached.
 */
async function changeExpiry(
  keyId: string,
  expiresAt: string | undefined,
  reason: { reason?: string },
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  const changed = await callAdmin<ShownChange>(target, {
    method: 'PUT',
    path: ['keys', keyId, 'expiry'],
    body: { expiresAt: expiresAt ?? null, ...reason },
  });
  stdout(`Key ${keyId} on ${target.description}`);
  stdout(`  expires: ${changed.previous.expiresAt ?? 'never'} -> ${expiresAt ?? 'never'}`);
  stdout(
    `Requests see the change when the authorizer's cached result expires, within ${AUTHORIZER_CACHE_TTL_SECONDS} s.`,
  );
}
