/** Lambda entry of getAccount (`GET /account`): `handlers/get-account.ts` on the stage's tables. */
import { createKeyService } from '../admin/composition-root.ts';
import { getAccountHandler } from './handlers/get-account.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service and user pool of `env` (Lambda's, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door, settings } = portalDoorOf(env);
  return getAccountHandler(createKeyService(env), door, {
    keyLimit: settings.PORTAL_KEY_LIMIT,
    enterpriseContactUrl: settings.PORTAL_ENTERPRISE_CONTACT_URL,
  });
}

/** Lambda handler of getAccount: REST proxy event in, proxy result out. */
export const handler = createHandler();
