/** `POST /keys/{keyId}/revoke` (revokeKey): 200 `{ key, apiGateway }`. Audit: `key.revoked`. */

import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { auditContextOf } from '../../../shared/http/iam-identity.ts';
import { jsonBody } from '../../../shared/http/json-body.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { ReasonBodySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of revokeKey. */
export function revokeKeyHandler(service: KeyService) {
  return adminHandler(
    async function revokeKey(event) {
      const keyId = keyIdOf(event);
      const { reason } = parseOrThrow(ReasonBodySchema, event.body, 'body', 'invalid_body');
      return jsonResponse(200, await service.revokeKey(keyId, auditContextOf(event, reason)));
    },
    { body: jsonBody() },
  );
}
