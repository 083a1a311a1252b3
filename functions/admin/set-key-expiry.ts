/** Lambda entry of setKeyExpiry (`PUT /keys/{keyId}/expiry`): `operations/set-key-expiry.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { setKeyExpiryHandler } from './operations/set-key-expiry.ts';

/** Lambda handler of setKeyExpiry: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = setKeyExpiryHandler(createKeyOperations());
