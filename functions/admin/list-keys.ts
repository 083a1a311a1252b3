/** Lambda entry of listKeys (`GET /keys`): `operations/list-keys.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { listKeysHandler } from './operations/list-keys.ts';

/** Lambda handler of listKeys: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = listKeysHandler(createKeyOperations());
