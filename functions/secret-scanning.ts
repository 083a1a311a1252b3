/**
 * Lambda entry of `POST /secret-scanning/github`: `handlers/secret-scanning.ts` on the key service
 * of the home region, GitHub's public key list (`SECRET_SCANNING_KEYS_URL`) and the region's
 * default event bus.
 */
import { createDynamoDBBase } from '../shared/dynamodb/base.ts';
import { EventBridgePublisher } from '../shared/eventbridge/eventbridge-publisher.ts';
import { GitHubPublicKeys } from '../shared/secret-scanning/github-public-keys.ts';
import { readSettings } from '../shared/settings.ts';
import { homeKeyService } from './admin/composition-root.ts';
import { secretScanningHandler } from './handlers/secret-scanning.ts';

/** The handler on the settings of `env` (Lambda's environment, or the local gateway's). */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  const base = createDynamoDBBase(readSettings(env));
  return secretScanningHandler({
    keys: homeKeyService(base),
    publicKeys: GitHubPublicKeys.from(base.settings.SECRET_SCANNING_KEYS_URL),
    events: EventBridgePublisher.from(base.settings),
  });
}

/** Lambda handler: API Gateway REST proxy event (no authorizer) in, proxy result out. */
export const handler = createHandler();
