/** Lambda entry of getPortalKeyUsage (`GET /keys/{keyId}/usage`): `handlers/get-portal-key-usage.ts` on the stage's tables. */
import { createKeyService } from '../admin/composition-root.ts';
import { getPortalKeyUsageHandler } from './handlers/get-portal-key-usage.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service and user pool of `env` (Lambda's, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door } = portalDoorOf(env);
  return getPortalKeyUsageHandler(createKeyService(env), door);
}

/** Lambda handler of getPortalKeyUsage: REST proxy event in, proxy result out. */
export const handler = createHandler();
