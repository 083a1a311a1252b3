/**
 * `unban`: lifts a key's temporary ban, given for repeated requests after a 429
 * (docs/rate-limits.md), at once instead of when it runs out, through the admin API (unbanKey,
 * audited as `key.unbanned` when there was a ban).
 */
import { type KeysCommandDependencies, keyIdSubcommand } from './command.ts';
import { dataOf, type Target } from './target.ts';

/** `unban <key-id> [--reason TEXT] [--stage S]`. */
export const unban = keyIdSubcommand(
  'unban',
  "Lift a key's temporary ban (given for repeated requests after a 429).",
  unbanKey,
);

/**
 * Lifts the key's ban and says until when it would have run, or that there was none.
 *
 * @throws Error for an unknown key id or an admin API that fails or cannot be reached.
 */
async function unbanKey(
  keyId: string,
  target: Target,
  { stdout }: KeysCommandDependencies,
  reason: { reason?: string },
): Promise<void> {
  const { lifted, bannedUntil } = await dataOf(
    target.admin.POST('/keys/{keyId}/unban', { params: { path: { keyId } }, body: reason }),
  );
  stdout(
    lifted
      ? `Lifted the ban on key ${keyId}; it would have run until ${bannedUntil}.`
      : `Key ${keyId} is not banned; nothing to lift.`,
  );
}
