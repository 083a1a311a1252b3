/** Lambda entry of getKey (`GET /keys/{keyId}`): `handlers/get-key.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { getKeyHandler } from './handlers/get-key.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return getKeyHandler(createKeyService(env));
}

/** Lambda handler of getKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
