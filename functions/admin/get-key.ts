/** Lambda entry of getKey (`GET /keys/{keyId}`): `operations/get-key.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { getKeyHandler } from './operations/get-key.ts';

/** Lambda handler of getKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = getKeyHandler(createKeyOperations());
