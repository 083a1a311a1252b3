/** Lambda entry of createKey (`POST /keys`): `operations/create-key.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { createKeyHandler } from './operations/create-key.ts';

/** Lambda handler of createKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createKeyHandler(createKeyOperations());
