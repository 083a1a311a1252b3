/** Lambda entry of createKey (`POST /keys`): `handlers/create-key.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { createKeyHandler } from './handlers/create-key.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return createKeyHandler(createKeyService(env));
}

/** Lambda handler of createKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
