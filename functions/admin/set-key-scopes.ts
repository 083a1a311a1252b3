/** Lambda entry of setKeyScopes (`PUT /keys/{keyId}/scopes`): `handlers/set-key-scopes.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { setKeyScopesHandler } from './handlers/set-key-scopes.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return setKeyScopesHandler(createKeyService(env));
}

/** Lambda handler of setKeyScopes: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
