/**
 * The admin functions of a staging of two regions as their container builds them from the settings
 * a stage gives them (home region `HOME`, its usage plans `<HOME>-free`…, the other region's found
 * by its stack's name), on the test file's tables; API Gateway is the test's to mock.
 */
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { regionalStackName, stackName } from '../../infra/stages.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';

export const HOME = 'us-east-1';
export const OTHER = 'us-west-2';
/** Each region's stack name. */
export const STACKS: Readonly<Record<string, string>> = {
  [HOME]: stackName('staging'),
  [OTHER]: regionalStackName('staging', OTHER),
};

/** The admin functions' key service in the home region; `env` overrides its settings. */
export function twoRegionKeyService(env: Record<string, string> = {}): KeyService {
  return createKeyService({
    ...process.env,
    AWS_REGION: HOME,
    PETSTORE_REGIONS: `${HOME},${OTHER}`,
    PETSTORE_STAGE: 'staging',
    PETSTORE_STACK_NAME: STACKS[HOME],
    PETSTORE_REGION_STACKS: `${STACKS[HOME]},${STACKS[OTHER]}`,
    PUBLIC_REST_API_ID: `api-${HOME}`,
    USAGE_PLAN_ID_FREE: `${HOME}-free`,
    USAGE_PLAN_ID_PRO: `${HOME}-pro`,
    USAGE_PLAN_ID_BUSINESS: `${HOME}-business`,
    ...env,
  });
}
