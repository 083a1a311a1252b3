/** Lambda entry of setPortalKeyPlan (`PUT /keys/{keyId}/plan`): its handler on the tables and bus. */
import { EventBridgePublisher } from '../../shared/eventbridge/eventbridge-publisher.ts';
import { createKeyService } from '../admin/composition-root.ts';
import { setPortalKeyPlanHandler } from './handlers/set-portal-key-plan.ts';
import { portalDoorOf } from './portal-door.ts';

/** The handler on the key service, the default event bus and the user pool of `env`. */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const { door, settings } = portalDoorOf(env);
  return setPortalKeyPlanHandler(createKeyService(env), EventBridgePublisher.from(settings), door);
}

/** Lambda handler of setPortalKeyPlan: REST proxy event in, proxy result out. */
export const handler = createHandler();
