/** Lambda entry of getKeyUsage (`GET /keys/{keyId}/usage`): `handlers/get-key-usage.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { getKeyUsageHandler } from './handlers/get-key-usage.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return getKeyUsageHandler(createKeyService(env));
}

/** Lambda handler of getKeyUsage: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
