/** Lambda entry of createPortalKey (`POST /keys`): `handlers/create-portal-key.ts` on the stage's tables. */
import { createKeyService } from '../admin/composition-root.ts';
import { createPortalKeyHandler } from './handlers/create-portal-key.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service and user pool of `env` (Lambda's, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door, settings } = portalDoorOf(env);
  return createPortalKeyHandler(createKeyService(env), door, settings.PORTAL_KEY_LIMIT);
}

/** Lambda handler of createPortalKey: REST proxy event in, proxy result out. */
export const handler = createHandler();
