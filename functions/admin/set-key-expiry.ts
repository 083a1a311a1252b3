/** Lambda entry of setKeyExpiry (`PUT /keys/{keyId}/expiry`): `handlers/set-key-expiry.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { setKeyExpiryHandler } from './handlers/set-key-expiry.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return setKeyExpiryHandler(createKeyService(env));
}

/** Lambda handler of setKeyExpiry: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
