/**
 * The admin functions of a staging of two regions as their container builds them from the settings
 * a stage gives them (home region `HOME`, its usage plans `<HOME>-free`…, the other region's found
 * by its stack's name), on the test file's tables; API Gateway is the test's to mock.
 */
import { createKeyOperations } from '../../functions/admin/container.ts';
import { regionalStackName, stackName } from '../../infra/stages.ts';
import type { KeyOperations } from '../../shared/keys/key-operations.ts';

export const HOME = 'us-east-1';
export const OTHER = 'us-west-2';
/** Each region's stack name. */
export const STACKS: Readonly<Record<string, string>> = {
  [HOME]: stackName('staging'),
  [OTHER]: regionalStackName('staging', OTHER),
};

/** A container of the admin functions in the home region; `env` overrides its settings. */
export function twoRegionKeyOperations(env: Record<string, string> = {}): KeyOperations {
  return createKeyOperations({
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
