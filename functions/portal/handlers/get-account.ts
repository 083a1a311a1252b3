/**
 * `GET /account` (getAccount; docs/portal-openapi.yaml): 200 `{ account, keys, plans,
 * enterpriseContactUrl }`: the account, its active keys and its limit, the standard plans.
 */
import { type PortalDoor, portalHandler } from '../../../shared/http/portal-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { accountOwner } from '../../../shared/keys/accounts.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import { PLAN_IDS, PLANS } from '../../../shared/plans.ts';

/** What getAccount says beside the account: the stage's settings. */
export interface AccountSettings {
  /** The most active keys an account holds (`PORTAL_KEY_LIMIT`). */
  readonly keyLimit: number;
  /** Where Enterprise is asked for (`PORTAL_ENTERPRISE_CONTACT_URL`). */
  readonly enterpriseContactUrl: string;
}

/** The Lambda handler of getAccount. */
export function getAccountHandler(keys: KeyService, door: PortalDoor, settings: AccountSettings) {
  return portalHandler(async function getAccount(_event, account) {
    return jsonResponse(200, {
      account: { sub: account.sub, email: account.email, emailVerified: account.emailVerified },
      keys: { active: await keys.activeKeys(accountOwner(account.sub)), max: settings.keyLimit },
      plans: PLAN_IDS.map((id) => ({ id, ...PLANS[id] })),
      enterpriseContactUrl: settings.enterpriseContactUrl,
    });
  }, door);
}
