/** Lambda entry of rollKey (`POST /keys/{keyId}/roll`): `operations/roll-key.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { rollKeyHandler } from './operations/roll-key.ts';

/** Lambda handler of rollKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = rollKeyHandler(createKeyOperations());
