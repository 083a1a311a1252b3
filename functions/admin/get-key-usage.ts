/** Lambda entry of getKeyUsage (`GET /keys/{keyId}/usage`): `operations/get-key-usage.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { getKeyUsageHandler } from './operations/get-key-usage.ts';

/** Lambda handler of getKeyUsage: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = getKeyUsageHandler(createKeyOperations());
