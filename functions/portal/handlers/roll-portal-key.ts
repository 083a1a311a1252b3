/**
 * `POST /keys/{keyId}/roll` (rollPortalKey): 200 `{ key, token, oldTokenUntil? }`; 409
 * `key_revoked`. Audit: `key.rolled`, the account as actor.
 */
import { jsonBody } from '../../../shared/http/json-body.ts';
import {
  accountAuditContext,
  type PortalDoor,
  portalHandler,
} from '../../../shared/http/portal-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { shownKey } from '../../../shared/keys/shown-key.ts';
import { RollPortalKeyBodySchema } from '../../../shared/portal/portal-schemas.ts';
import { keyIdOf } from '../../admin/handlers/key-id.ts';
import { keyAnswer } from './portal-answers.ts';

/** The Lambda handler of rollPortalKey. */
export function rollPortalKeyHandler(keys: KeyService, door: PortalDoor) {
  return portalHandler(
    async function rollPortalKey(event, account) {
      const keyId = keyIdOf(event);
      const { graceSeconds } = parseOrThrow(
        RollPortalKeyBodySchema,
        event.body,
        'body',
        'invalid_body',
      );
      const rolled = await keys.rollKey(keyId, graceSeconds, accountAuditContext(event, account));
      const oldTokenUntil = rolled.graceUntil;
      const { key } = keyAnswer({ key: { ...shownKey(rolled.record), oldTokenUntil } });
      return jsonResponse(200, {
        key,
        token: rolled.token,
        ...(oldTokenUntil && { oldTokenUntil }),
      });
    },
    door,
    { body: jsonBody() },
  );
}
