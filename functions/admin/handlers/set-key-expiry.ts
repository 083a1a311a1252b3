/** `PUT /keys/{keyId}/expiry` (setKeyExpiry): 200 `{ previous, key, apiGateway }`. Audit: `key.expiry_set`. */

import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { auditContextOf } from '../../../shared/http/iam-identity.ts';
import { jsonBody } from '../../../shared/http/json-body.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { SetExpiryBodySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of setKeyExpiry (`expiresAt: null`: the key never expires). */
export function setKeyExpiryHandler(service: KeyService) {
  return adminHandler(
    async function setKeyExpiry(event) {
      const keyId = keyIdOf(event);
      const { expiresAt, reason } = parseOrThrow(
        SetExpiryBodySchema,
        event.body,
        'body',
        'invalid_body',
      );
      const context = auditContextOf(event, reason);
      return jsonResponse(200, await service.setExpiry(keyId, expiresAt ?? undefined, context));
    },
    { body: jsonBody() },
  );
}
