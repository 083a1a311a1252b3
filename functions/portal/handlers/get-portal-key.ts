/** `GET /keys/{keyId}` (getPortalKey): 200 `{ key }`; another account's key: 404, as unknown. */
import { type PortalDoor, portalHandler } from '../../../shared/http/portal-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { accountOwner } from '../../../shared/keys/accounts.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from '../../admin/handlers/key-id.ts';
import { keyAnswer } from './portal-answers.ts';

/** The Lambda handler of getPortalKey. */
export function getPortalKeyHandler(keys: KeyService, door: PortalDoor) {
  return portalHandler(async function getPortalKey(event, account) {
    const status = await keys.getKey(keyIdOf(event), accountOwner(account.sub));
    return jsonResponse(200, keyAnswer(status));
  }, door);
}
