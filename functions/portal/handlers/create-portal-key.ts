/**
 * `POST /keys` (createPortalKey): a Free key of the account, 201 `{ key, token }` with `Location`
 * (the token in no other answer); 403 `email_not_verified`; 409 `key_limit_reached` at the
 * account's limit. Audit: `key.created`, the account as actor.
 */
import { jsonBody } from '../../../shared/http/json-body.ts';
import {
  accountAuditContext,
  type PortalDoor,
  portalHandler,
} from '../../../shared/http/portal-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { accountOwner } from '../../../shared/keys/accounts.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { EmailNotVerifiedError } from '../../../shared/portal/portal-errors.ts';
import { CreatePortalKeyBodySchema } from '../../../shared/portal/portal-schemas.ts';
import { keyAnswer } from './portal-answers.ts';

/** The Lambda handler of createPortalKey; `keyLimit` is the most active keys of an account. */
export function createPortalKeyHandler(keys: KeyService, door: PortalDoor, keyLimit: number) {
  return portalHandler(
    async function createPortalKey(event, account) {
      const body = parseOrThrow(CreatePortalKeyBodySchema, event.body, 'body', 'invalid_body');
      if (!account.emailVerified) throw new EmailNotVerifiedError();
      const created = await keys.createKey(
        { ...body, plan: 'free', owner: accountOwner(account.sub) },
        accountAuditContext(event, account),
        { maxActiveKeys: keyLimit },
      );
      const { key } = keyAnswer({ key: created.key });
      return jsonResponse(201, { key, token: created.token }, { Location: `keys/${key.keyId}` });
    },
    door,
    { body: jsonBody() },
  );
}
