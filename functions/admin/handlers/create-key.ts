/**
 * `POST /keys` (createKey; docs/admin-openapi.yaml): 201 `{ key, token, apiGateway }` with
 * `Location`; the token is in no other answer and stored nowhere. Audit: `key.created`.
 */

import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { auditContextOf } from '../../../shared/http/iam-identity.ts';
import { jsonBody } from '../../../shared/http/json-body.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { CreateKeyBodySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';

/** The Lambda handler of createKey. */
export function createKeyHandler(service: KeyService) {
  return adminHandler(
    async function createKey(event) {
      const { reason, ...input } = parseOrThrow(
        CreateKeyBodySchema,
        event.body,
        'body',
        'invalid_body',
      );
      const created = await service.createKey(input, auditContextOf(event, reason));
      return jsonResponse(201, created, { Location: `keys/${created.key.keyId}` });
    },
    { body: jsonBody() },
  );
}
