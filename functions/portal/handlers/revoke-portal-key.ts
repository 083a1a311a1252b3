/**
 * `POST /keys/{keyId}/revoke` (revokePortalKey): 200 `{ key }`; revoking again writes nothing.
 * Audit: `key.revoked`, the account as actor.
 */
import {
  accountAuditContext,
  type PortalDoor,
  portalHandler,
} from '../../../shared/http/portal-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from '../../admin/handlers/key-id.ts';
import { keyAnswer } from './portal-answers.ts';

/** The Lambda handler of revokePortalKey. */
export function revokePortalKeyHandler(keys: KeyService, door: PortalDoor) {
  return portalHandler(async function revokePortalKey(event, account) {
    const revoked = await keys.revokeKey(keyIdOf(event), accountAuditContext(event, account));
    return jsonResponse(200, keyAnswer(revoked));
  }, door);
}
