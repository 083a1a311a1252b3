/** Lambda entry of setKeyScopes (`PUT /keys/{keyId}/scopes`): `operations/set-key-scopes.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { setKeyScopesHandler } from './operations/set-key-scopes.ts';

/** Lambda handler of setKeyScopes: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = setKeyScopesHandler(createKeyOperations());
