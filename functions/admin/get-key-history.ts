/** Lambda entry of getKeyHistory (`GET /keys/{keyId}/history`): `handlers/get-key-history.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { getKeyHistoryHandler } from './handlers/get-key-history.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return getKeyHistoryHandler(createKeyService(env));
}

/** Lambda handler of getKeyHistory: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
