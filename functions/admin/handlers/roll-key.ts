/**
 * `POST /keys/{keyId}/roll` (rollKey): 200 `{ key, token, graceUntil? }`; 409 `key_revoked`.
 * Audit: `key.rolled`.
 */

import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { auditContextOf } from '../../../shared/http/iam-identity.ts';
import { jsonBody } from '../../../shared/http/json-body.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { RollKeyBodySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { shownKey } from '../../../shared/keys/shown-key.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of rollKey. */
export function rollKeyHandler(service: KeyService) {
  return adminHandler(
    async function rollKey(event) {
      const keyId = keyIdOf(event);
      const { graceSeconds, reason } = parseOrThrow(
        RollKeyBodySchema,
        event.body,
        'body',
        'invalid_body',
      );
      const rolled = await service.rollKey(keyId, graceSeconds, auditContextOf(event, reason));
      return jsonResponse(200, {
        key: shownKey(rolled.record),
        token: rolled.token,
        ...(rolled.graceUntil && { graceUntil: rolled.graceUntil }),
      });
    },
    { body: jsonBody() },
  );
}
