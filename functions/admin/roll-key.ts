/** Lambda entry of rollKey (`POST /keys/{keyId}/roll`): `handlers/roll-key.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { rollKeyHandler } from './handlers/roll-key.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return rollKeyHandler(createKeyService(env));
}

/** Lambda handler of rollKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
