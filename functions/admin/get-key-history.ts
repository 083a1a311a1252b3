/** Lambda entry of getKeyHistory (`GET /keys/{keyId}/history`): `operations/get-key-history.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { getKeyHistoryHandler } from './operations/get-key-history.ts';

/** Lambda handler of getKeyHistory: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = getKeyHistoryHandler(createKeyOperations());
