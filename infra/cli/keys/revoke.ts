/**
 * `revoke`: revokes a key through the admin API (revokeKey, audited as `key.revoked`), after
 * which the authorizer refuses it (401, docs/api.md, "Authentication"); on a stage the admin API
 * also disables its API Gateway API key.
 */
import { planName } from '../../../shared/plans.ts';
import { type KeysCommandDependencies, keyIdSubcommand } from './command.ts';
import { inRegion, regionOf, stepSentence } from './format.ts';
import { dataOf, type Target } from './target.ts';

/** `revoke <key-id> [--reason TEXT] [--stage S]`. */
export const revoke = keyIdSubcommand(
  'revoke',
  'Revoke a key; requests with it are then refused with 401.',
  revokeKey,
);

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
  const { key, apiGateway } = await dataOf(
    target.admin.POST('/keys/{keyId}/revoke', { params: { path: { keyId } }, body: reason }),
  );
  stdout(
    `Revoked key ${keyId} (${planName(key.plan)}, owner ${key.owner ?? '-'}) at ${key.revokedAt}.`,
  );
  const failures: string[] = [];
  for (const step of apiGateway.steps) {
    const region = regionOf(step, apiGateway);
    if (step.outcome === 'failed') {
      failures.push(`${step.error?.message}${region ? ` (${region})` : ''}`);
    } else if (step.outcome === 'notFound') {
      stderr(
        `keys: note: no API Gateway API key is named ${keyId}${inRegion(region)}; nothing to disable.`,
      );
    } else stdout(stepSentence(step, region));
  }
  if (failures.length > 0) {
    throw new Error(
      `Key ${keyId} is revoked (the authorizer refuses it), but disabling its API Gateway API key failed: ${failures.join('; ')}`,
    );
  }
}
