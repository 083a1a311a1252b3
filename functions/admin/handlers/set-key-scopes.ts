/** `PUT /keys/{keyId}/scopes` (setKeyScopes): 200 `{ previous, key, apiGateway }`. Audit: `key.scope_changed`. */

import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { auditContextOf } from '../../../shared/http/iam-identity.ts';
import { jsonBody } from '../../../shared/http/json-body.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { SetScopesBodySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of setKeyScopes. */
export function setKeyScopesHandler(service: KeyService) {
  return adminHandler(
    async function setKeyScopes(event) {
      const keyId = keyIdOf(event);
      const { scopes, reason } = parseOrThrow(
        SetScopesBodySchema,
        event.body,
        'body',
        'invalid_body',
      );
      const context = auditContextOf(event, reason);
      return jsonResponse(200, await service.setScopes(keyId, scopes, context));
    },
    { body: jsonBody() },
  );
}
