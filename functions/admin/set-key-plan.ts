/** Lambda entry of setKeyPlan (`PUT /keys/{keyId}/plan`): `handlers/set-key-plan.ts` on the stage's tables. */
import { createKeyService } from './composition-root.ts';
import { setKeyPlanHandler } from './handlers/set-key-plan.ts';

/** The handler on the key service of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return setKeyPlanHandler(createKeyService(env));
}

/** Lambda handler of setKeyPlan: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
