/** Lambda entry of revokeKey (`POST /keys/{keyId}/revoke`): `handlers/revoke-key.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { revokeKeyHandler } from './handlers/revoke-key.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return revokeKeyHandler(createKeyService(env));
}

/** Lambda handler of revokeKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
