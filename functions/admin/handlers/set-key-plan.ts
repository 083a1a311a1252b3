/**
 * `PUT /keys/{keyId}/plan` (setKeyPlan): 200 `{ previous, key, apiGateway }`; 400 `invalid_body`
 * for limits on a standard plan or none on Enterprise; 409 `key_revoked`; 503 when API Gateway
 * refuses (undone). Audit: `key.plan_changed`.
 */

import { adminHandler } from '../../../shared/http/admin-handler.ts';
import { auditContextOf } from '../../../shared/http/iam-identity.ts';
import { jsonBody } from '../../../shared/http/json-body.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { SetPlanBodySchema } from '../../../shared/keys/admin-schemas.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { keyIdOf } from './key-id.ts';

/** The Lambda handler of setKeyPlan. */
export function setKeyPlanHandler(service: KeyService) {
  return adminHandler(
    async function setKeyPlan(event) {
      const keyId = keyIdOf(event);
      const { plan, limits, reason } = parseOrThrow(
        SetPlanBodySchema,
        event.body,
        'body',
        'invalid_body',
      );
      const context = auditContextOf(event, reason);
      return jsonResponse(200, await service.setPlan(keyId, plan, limits, context));
    },
    { body: jsonBody() },
  );
}
