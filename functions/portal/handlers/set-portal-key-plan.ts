/**
 * `PUT /keys/{keyId}/plan` (setPortalKeyPlan): to Free at once, 200 `{ key }` (audit
 * `key.plan_changed`); to Pro or Business, `plan.upgrade_requested` published for a billing system
 * and 202 `{ upgrade }`, nothing changed; the key's own plan: 200, nothing done. A revoked key:
 * 409 `key_revoked`.
 */
import type { EventPublisher } from '../../../shared/events/event-publisher.ts';
import { jsonBody } from '../../../shared/http/json-body.ts';
import {
  accountAuditContext,
  type PortalDoor,
  portalHandler,
} from '../../../shared/http/portal-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { accountOwner } from '../../../shared/keys/accounts.ts';
import { KeyRevokedError } from '../../../shared/keys/key-errors.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { PORTAL_EVENT_SOURCE, UPGRADE_REQUESTED } from '../../../shared/portal/portal-ports.ts';
import { SetPortalKeyPlanBodySchema } from '../../../shared/portal/portal-schemas.ts';
import { keyIdOf } from '../../admin/handlers/key-id.ts';
import { keyAnswer } from './portal-answers.ts';

/** The Lambda handler of setPortalKeyPlan, publishing upgrade requests on `events`. */
export function setPortalKeyPlanHandler(
  keys: KeyService,
  events: EventPublisher,
  door: PortalDoor,
) {
  return portalHandler(
    async function setPortalKeyPlan(event, account) {
      const keyId = keyIdOf(event);
      const { plan } = parseOrThrow(SetPortalKeyPlanBodySchema, event.body, 'body', 'invalid_body');
      const owner = accountOwner(account.sub);
      const status = await keys.getKey(keyId, owner);
      if (status.key.plan === plan) return jsonResponse(200, keyAnswer(status));
      if (plan === 'free') {
        const moved = await keys.setPlan(
          keyId,
          plan,
          undefined,
          accountAuditContext(event, account),
        );
        return jsonResponse(200, keyAnswer({ ...status, key: moved.key }));
      }
      const { revokedAt } = status.key;
      if (revokedAt)
        throw new KeyRevokedError(keyId, { revokedAt, rule: 'a revoked key keeps its plan' });
      await events.publish([
        {
          source: PORTAL_EVENT_SOURCE,
          detailType: UPGRADE_REQUESTED,
          detail: { accountId: owner, email: account.email, keyId, plan },
        },
      ]);
      return jsonResponse(202, { upgrade: { plan, status: 'requested' } });
    },
    door,
    { body: jsonBody() },
  );
}
