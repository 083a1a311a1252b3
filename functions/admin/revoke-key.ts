/** Lambda entry of revokeKey (`POST /keys/{keyId}/revoke`): `operations/revoke-key.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { revokeKeyHandler } from './operations/revoke-key.ts';

/** Lambda handler of revokeKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = revokeKeyHandler(createKeyOperations());
