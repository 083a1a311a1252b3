/**
 * `unban`: lifts a key's temporary ban, given for repeated requests after a 429
 * (docs/rate-limits.md), at once instead of when it runs out.
 */
import { type KeysCommandDependencies, keyIdSubcommand } from './command.ts';
import { isoTime } from './format.ts';
import { onCountersTable, onKeysTable, type Target, unknownKey } from './target.ts';

/** `unban <key-id> [--stage S]`. */
export const unban = keyIdSubcommand(
  'unban',
  "Lift a key's temporary ban (given for repeated requests after a 429).",
  unbanKey,
);

/**
 * Lifts the key's ban in the counters table (`unban` of the rate limiter's admin operations) and
 * says until when it would have run, or that there was none.
 *
 * @throws Error for an unknown key id or a failing keys or counters table.
 */
async function unbanKey(
  keyId: string,
  target: Target,
  { stdout }: KeysCommandDependencies,
): Promise<void> {
  if (!(await onKeysTable(target, (keys) => keys.findById(keyId)))) throw unknownKey(keyId, target);
  const lifted = await onCountersTable(target, ({ bans }) => bans.unban(keyId, Date.now()));
  stdout(
    lifted
      ? `Lifted the ban on key ${keyId}; it would have run until ${isoTime(lifted.bannedUntil)}.`
      : `Key ${keyId} is not banned; nothing to lift.`,
  );
}
