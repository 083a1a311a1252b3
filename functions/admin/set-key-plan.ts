/** Lambda entry of setKeyPlan (`PUT /keys/{keyId}/plan`): `operations/set-key-plan.ts` on the stage's tables. */
import { createKeyOperations } from './container.ts';
import { setKeyPlanHandler } from './operations/set-key-plan.ts';

/** Lambda handler of setKeyPlan: IAM-authorized API Gateway REST proxy event in, proxy result out. */
export const handler = setKeyPlanHandler(createKeyOperations());
