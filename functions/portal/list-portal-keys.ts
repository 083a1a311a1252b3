/** Lambda entry of listPortalKeys (`GET /keys`): `handlers/list-portal-keys.ts` on the stage's tables. */
import { createKeyService } from '../admin/composition-root.ts';
import { listPortalKeysHandler } from './handlers/list-portal-keys.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service and user pool of `env` (Lambda's, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door } = portalDoorOf(env);
  return listPortalKeysHandler(createKeyService(env), door);
}

/** Lambda handler of listPortalKeys: REST proxy event in, proxy result out. */
export const handler = createHandler();
