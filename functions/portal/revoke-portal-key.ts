/** Lambda entry of revokePortalKey (`POST /keys/{keyId}/revoke`): `handlers/revoke-portal-key.ts` on the stage's tables. */
import { createKeyService } from '../admin/composition-root.ts';
import { revokePortalKeyHandler } from './handlers/revoke-portal-key.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service and user pool of `env` (Lambda's, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door } = portalDoorOf(env);
  return revokePortalKeyHandler(createKeyService(env), door);
}

/** Lambda handler of revokePortalKey: REST proxy event in, proxy result out. */
export const handler = createHandler();
