/** Lambda entry of getPortalKey (`GET /keys/{keyId}`): `handlers/get-portal-key.ts` on the stage's tables. */
import { createKeyService } from '../admin/composition-root.ts';
import { getPortalKeyHandler } from './handlers/get-portal-key.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service and user pool of `env` (Lambda's, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door } = portalDoorOf(env);
  return getPortalKeyHandler(createKeyService(env), door);
}

/** Lambda handler of getPortalKey: REST proxy event in, proxy result out. */
export const handler = createHandler();
