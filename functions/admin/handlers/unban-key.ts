/**
 * `POST /keys/{keyId}/unban` (unbanKey): 200 `{ keyId, lifted, bannedUntil? }`. Audit:
 * `key.unbanned`, only when a ban was lifted.
 */

import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { auditContextOf } from '../../../shared/http/iam-identity.ts';
import { jsonBody } from '../../../shared/http/json-body.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { ReasonBodySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of unbanKey. */
export function unbanKeyHandler(service: KeyService) {
  return adminHandler(
    async function unbanKey(event) {
      const keyId = keyIdOf(event);
      const { reason } = parseOrThrow(ReasonBodySchema, event.body, 'body', 'invalid_body');
      const lifted = await service.unbanKey(keyId, auditContextOf(event, reason));
      return jsonResponse(200, {
        keyId,
        lifted: lifted !== undefined,
        ...(lifted && { bannedUntil: new Date(lifted.bannedUntil * 1000).toISOString() }),
      });
    },
    { body: jsonBody() },
  );
}
