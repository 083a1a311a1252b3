/** Lambda entry of rollPortalKey (`POST /keys/{keyId}/roll`): `handlers/roll-portal-key.ts` on the stage's tables. */
import { createKeyService } from '../admin/composition-root.ts';
import { rollPortalKeyHandler } from './handlers/roll-portal-key.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service and user pool of `env` (Lambda's, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door } = portalDoorOf(env);
  return rollPortalKeyHandler(createKeyService(env), door);
}

/** Lambda handler of rollPortalKey: REST proxy event in, proxy result out. */
export const handler = createHandler();
