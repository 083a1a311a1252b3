/** Each admin operation's handler (functions/admin/operations/) on a test's key operations. */
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
import type { KeyOperations } from '../../shared/keys/key-operations.ts';

/** Each admin operation's handler on `operations` (functions/admin/operations/). */
export function adminHandlersOf(
  operations: KeyOperations,
): Readonly<Record<AdminOperationId, LambdaHandler>> {
  const handlers = {
    listKeys: listKeysHandler(operations),
    createKey: createKeyHandler(operations),
    getKey: getKeyHandler(operations),
    rollKey: rollKeyHandler(operations),
    setKeyExpiry: setKeyExpiryHandler(operations),
    setKeyPlan: setKeyPlanHandler(operations),
    setKeyScopes: setKeyScopesHandler(operations),
    revokeKey: revokeKeyHandler(operations),
    unbanKey: unbanKeyHandler(operations),
    getKeyUsage: getKeyUsageHandler(operations),
    getKeyHistory: getKeyHistoryHandler(operations),
    listAuditEntries: listAuditEntriesHandler(operations),
  };
  return handlers as Readonly<Record<AdminOperationId, LambdaHandler>>;
}
