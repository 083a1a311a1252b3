/** Each admin operation's handler (functions/admin/handlers/) on a test's key service. */
import { createKeyHandler } from '../../functions/admin/handlers/create-key.ts';
import { getKeyHandler } from '../../functions/admin/handlers/get-key.ts';
import { getKeyHistoryHandler } from '../../functions/admin/handlers/get-key-history.ts';
import { getKeyUsageHandler } from '../../functions/admin/handlers/get-key-usage.ts';
import { listAuditEntriesHandler } from '../../functions/admin/handlers/list-audit-entries.ts';
import { listKeysHandler } from '../../functions/admin/handlers/list-keys.ts';
import { revokeKeyHandler } from '../../functions/admin/handlers/revoke-key.ts';
import { rollKeyHandler } from '../../functions/admin/handlers/roll-key.ts';
import { setKeyExpiryHandler } from '../../functions/admin/handlers/set-key-expiry.ts';
import { setKeyPlanHandler } from '../../functions/admin/handlers/set-key-plan.ts';
import { setKeyScopesHandler } from '../../functions/admin/handlers/set-key-scopes.ts';
import { unbanKeyHandler } from '../../functions/admin/handlers/unban-key.ts';
import type { LambdaHandler } from '../../infra/local/invocation.ts';
import type { AdminOperationId } from '../../shared/admin-operations.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';

/** Each admin operation's handler on `service` (functions/admin/handlers/). */
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
