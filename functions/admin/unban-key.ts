/** Lambda entry of unbanKey (`POST /keys/{keyId}/unban`): `handlers/unban-key.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { unbanKeyHandler } from './handlers/unban-key.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return unbanKeyHandler(createKeyService(env));
}

/** Lambda handler of unbanKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
