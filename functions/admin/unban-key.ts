/** Lambda entry of unbanKey (`POST /keys/{keyId}/unban`): `operations/unban-key.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { unbanKeyHandler } from './operations/unban-key.ts';

/** Lambda handler of unbanKey: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = unbanKeyHandler(createKeyOperations());
