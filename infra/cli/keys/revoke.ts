/**
 * `revoke`: revokes a key through the admin API (revokeKey, audited as `key.revoked`), after
 * which the authorizer refuses it (401, docs/api.md, "Authentication"); on a stage the admin API
 * also disables its API Gateway API key.
 */
import type { ShownKey } from '../../../shared/keys/key-service.ts';
import { planName } from '../../../shared/plans.ts';
import { type KeysCommandDependencies, keyIdSubcommand } from './command.ts';
import { inRegion, regionLine } from './format.ts';
import { callAdmin, type Target } from './target.ts';

/** `revoke <key-id> [--reason TEXT] [--stage S]`. */
export const revoke = keyIdSubcommand(
  'revoke',
  'Revoke a key; requests with it are then refused with 401.',
  revokeKey,
);

/** How the admin API reports an API Gateway API key it could not disable. */
const DISABLE_FAILED = 'FAILED to disable its API Gateway API key: ';

/**
 * Revokes the key and prints what the admin API did: on a stage, each API Gateway API key named
 * after it disabled (a note on stderr when there is none).
 *
 * @throws Error for an unknown key id, an admin API that fails or cannot be reached, or API
 *   Gateway refusing to disable the API key (the key stays revoked then, which the message says).
 */
async function revokeKey(
  keyId: string,
  target: Target,
  { stdout, stderr }: KeysCommandDependencies,
  reason: { reason?: string },
): Promise<void> {
  const { key, apiGateway } = await callAdmin<{ key: ShownKey; apiGateway: readonly string[] }>(
    target,
    { method: 'POST', path: ['keys', keyId, 'revoke'], body: reason },
  );
  stdout(
    `Revoked key ${keyId} (${planName(key.plan)}, owner ${key.owner ?? '-'}) at ${key.revokedAt}.`,
  );
  const failures: string[] = [];
  for (const { region, text } of apiGateway.map(regionLine)) {
    if (text.startsWith(DISABLE_FAILED)) {
      failures.push(`${text.slice(DISABLE_FAILED.length)}${region ? ` (${region})` : ''}`);
    } else if (text.startsWith('no API Gateway API key'))
      stderr(`keys: note: ${text}${inRegion(region)}; nothing to disable.`);
    else stdout(`${text.charAt(0).toUpperCase()}${text.slice(1)}${inRegion(region)}.`);
  }
  if (failures.length > 0) {
    throw new Error(
      `Key ${keyId} is revoked (the authorizer refuses it), but disabling its API Gateway API key failed: ${failures.join('; ')}`,
    );
  }
}
