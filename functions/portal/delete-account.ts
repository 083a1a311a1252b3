/** Lambda entry of deleteAccount (`DELETE /account`): `handlers/delete-account.ts` on the stage's tables. */
import { CognitoUserPool } from '../../shared/cognito/user-pool.ts';
import { createKeyService } from '../admin/composition-root.ts';
import { deleteAccountHandler } from './handlers/delete-account.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service and user pool of `env` (Lambda's, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door, settings } = portalDoorOf(env);
  return deleteAccountHandler(createKeyService(env), CognitoUserPool.from(settings), door);
}

/** Lambda handler of deleteAccount: REST proxy event in, proxy result out. */
export const handler = createHandler();
