/** Lambda entry of listKeys (`GET /keys`): `handlers/list-keys.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { listKeysHandler } from './handlers/list-keys.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return listKeysHandler(createKeyService(env));
}

/** Lambda handler of listKeys: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
