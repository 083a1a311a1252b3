/**
 * `revoke`: revokes a key, after which the authorizer refuses it (401, docs/api.md,
 * "Authentication"); on a stage its API Gateway API key is disabled as well.
 */
import { planName } from '../../../shared/plans.ts';
import { apiKeyIdsNamed, disableApiKey } from './api-gateway.ts';
import { type KeysCommandDependencies, keyIdSubcommand } from './command.ts';
import { onKeysTable, type Target, unknownKey } from './target.ts';

/** `revoke <key-id> [--stage S]`. */
export const revoke = keyIdSubcommand(
  'revoke',
  'Revoke a key; requests with it are then refused with 401.',
  revokeKey,
);

/**
 * Revokes the key in the keys table and, on a stage, disables every API Gateway API key named
 * after it (a note on stderr when there is none).
 *
 * @throws Error for an unknown key id, a failing keys table, or API Gateway refusing (the key
 *   stays revoked then, which the message says).
 */
async function revokeKey(
  keyId: string,
  target: Target,
  { apiGateway, stdout, stderr }: KeysCommandDependencies,
): Promise<void> {
  const record = await onKeysTable(target, (keys) => keys.revokeKey(keyId));
  if (!record) throw unknownKey(keyId, target);
  stdout(
    `Revoked key ${keyId} (${planName(record.plan)}, owner ${record.owner ?? '-'}) at ${record.revokedAt}.`,
  );
  if (!target.deployed) return;
  try {
    const apiKeyIds = await apiKeyIdsNamed(apiGateway, keyId);
    if (apiKeyIds.length === 0) {
      stderr(`keys: note: no API Gateway API key is named ${keyId}; nothing to disable.`);
    }
    for (const apiKeyId of apiKeyIds) {
      await disableApiKey(apiGateway, apiKeyId);
      stdout(`Disabled API Gateway API key ${apiKeyId}.`);
    }
  } catch (error) {
    throw new Error(
      `Key ${keyId} is revoked (the authorizer refuses it), but disabling its API Gateway API key failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
