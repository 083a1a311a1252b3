/**
 * `DELETE /account` (deleteAccount): every active key of the account revoked (reason `account
 * deleted`, each audited), then the account removed from the user pool; 204. Calling again after
 * a failure finishes it: a revoked key is not revoked twice.
 */
import {
  accountAuditContext,
  type PortalDoor,
  portalHandler,
} from '../../../shared/http/portal-handler.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import type { AccountDirectory } from '../../../shared/portal/portal-ports.ts';

/** The reason each revocation of a deleted account's keys records. */
export const ACCOUNT_DELETED = 'account deleted';

/** The Lambda handler of deleteAccount. */
export function deleteAccountHandler(
  keys: KeyService,
  directory: AccountDirectory,
  door: PortalDoor,
) {
  return portalHandler(async function deleteAccount(event, account) {
    await keys.revokeAccountKeys(accountAuditContext(event, account, ACCOUNT_DELETED));
    await directory.deleteAccount(account.sub);
    return { statusCode: 204, headers: {}, body: '' };
  }, door);
}
