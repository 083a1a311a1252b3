/** Each admin operation's handler (functions/admin/operations/) on a test's key service. */
import { createKeyHandler } from '../../functions/admin/operations/create-key.ts';
import { getKeyHandler } from '../../functions/admin/operations/get-key.ts';
import { getKeyHistoryHandler } from '../../functions/admin/operations/get-key-history.ts';
import { getKeyUsageHandler } from '../../functions/admin/operations/get-key-usage.ts';
import { listAuditEntriesHandler } from '../../functions/admin/operations/list-audit-entries.ts';
import { listKeysHandler } from '../../functions/admin/operations/list-keys.ts';
import { revokeKeyHandler } from '../../functions/admin/operations/revoke-key.ts';
import { rollKeyHandler } from '../../functions/admin/operations/roll-key.ts';
import { setKeyExpiryHandler } from '../../functions/admin/operations/set-key-expiry.ts';
import { setKeyPlanHandler } from '../../functions/admin/operations/set-key-plan.ts';
import { setKeyScopesHandler } from '../../functions/admin/operations/set-key-scopes.ts';
import { unbanKeyHandler } from '../../functions/admin/operations/unban-key.ts';
import type { LambdaHandler } from '../../infra/local/invocation.ts';
import type { AdminOperationId } from '../../shared/admin-operations.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';

/** Each admin operation's handler on `service` (functions/admin/operations/). */
export function adminHandlersOf(
  service: KeyService,
): Readonly<Record<AdminOperationId, LambdaHandler>> {
  const handlers = {
    listKeys: listKeysHandler(service),
    createKey: createKeyHandler(service),
    getKey: getKeyHandler(service),
    rollKey: rollKeyHandler(service),
    setKeyExpiry: setKeyExpiryHandler(service),
    setKeyPlan: setKeyPlanHandler(service),
    setKeyScopes: setKeyScopesHandler(service),
    revokeKey: revokeKeyHandler(service),
    unbanKey: unbanKeyHandler(service),
    getKeyUsage: getKeyUsageHandler(service),
    getKeyHistory: getKeyHistoryHandler(service),
    listAuditEntries: listAuditEntriesHandler(service),
  };
  return handlers as Readonly<Record<AdminOperationId, LambdaHandler>>;
}
