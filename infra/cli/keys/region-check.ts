/**
 * `check <key-id> --stage S [--region R]`: whether each region's API Gateway holds a key as the
 * keys table says (docs/operations.md, "Keys in every region"): one API key named after it,
 * enabled unless the key is revoked, in its plan's usage plan of that region's stack (an
 * Enterprise key: its own). Reads only: the admin API (home region) for the key, CloudFormation
 * and API Gateway of each region (`stageStacks`) for the rest.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import {
  apiKeysNamed,
  ownUsagePlanName,
  usagePlansOf,
} from '../../../shared/apigateway/key-registration.ts';
import type { KeyStatus, ShownKey } from '../../../shared/keys/key-service.ts';
import { isStandardPlanId, planName } from '../../../shared/plans.ts';
import { type StageName, usagePlanOutputName } from '../../stages.ts';
import { type RegionStack, stacksOfStage } from '../common/stage-stacks.ts';
import type { KeysCommandDependencies } from './command.ts';
import { callAdmin, openTarget } from './target.ts';

/**
 * What a region's API Gateway holds of the key that differs from the keys table's key; none
 * when it matches.
 */
export async function regionDifferences(
  apiGateway: APIGatewayClient,
  stack: RegionStack,
  key: ShownKey,
): Promise<{ lines: string[]; differences: string[] }> {
  const apiKeys = await apiKeysNamed(apiGateway, key.keyId);
  const [apiKey] = apiKeys;
  if (apiKey === undefined || apiKeys.length > 1) {
    return { lines: [], differences: [`${apiKeys.length} API keys named ${key.keyId}, not one`] };
  }
  const differences: string[] = [];
  const enabled = apiKey.enabled ? 'enabled' : 'disabled';
  if (apiKey.enabled === Boolean(key.revokedAt)) {
    differences.push(
      `API key ${apiKey.id} is ${enabled}, and the key is ${key.revokedAt ? 'revoked' : 'not revoked'}`,
    );
  }
  const usagePlans = await usagePlansOf(apiGateway, apiKey.id);
  const { plan } = key;
  const wanted = isStandardPlanId(plan)
    ? { id: stack.outputs.get(usagePlanOutputName(plan)) }
    : { name: ownUsagePlanName(stack.stackName, key.keyId) };
  const [usagePlan] = usagePlans;
  const inWanted =
    usagePlans.length === 1 &&
    ('id' in wanted ? usagePlan?.id === wanted.id : usagePlan?.name === wanted.name);
  if (!inWanted) {
    const names = usagePlans.map(({ id, name }) => `${id} (${name})`).join(', ') || 'none';
    differences.push(
      `API key ${apiKey.id} is in usage plans ${names}, not in ${planName(plan)}'s of stack ${stack.stackName}`,
    );
  }
  const plans = usagePlans.map(({ id, name }) => `${id} (${name})`).join(', ');
  return { lines: [`API key ${apiKey.id} ${enabled}, in usage plan ${plans}`], differences };
}

/**
 * Checks the key in every region of the stage (or `region` alone) and prints a line per region.
 * @throws Error naming the regions that differ; as `stageStacks` and `callAdmin`.
 */
export async function checkRegions(
  keyId: string,
  stage: StageName,
  region: string | undefined,
  dependencies: KeysCommandDependencies,
): Promise<void> {
  const { cloudFormation, stageCredentials, stdout } = dependencies;
  const target = await openTarget(stage, dependencies);
  const { key } = await callAdmin<KeyStatus>(target, { method: 'GET', path: ['keys', keyId] });
  const stacks = await stacksOfStage(
    stage,
    {
      cloudFormation,
      cloudFormationIn: (each) =>
        new CloudFormationClient({ region: each, credentials: stageCredentials }),
    },
    region,
  );
  const apiGatewayIn =
    dependencies.apiGatewayIn ??
    ((each: string) => new APIGatewayClient({ region: each, credentials: stageCredentials }));
  const state = key.revokedAt ? `revoked at ${key.revokedAt}` : 'not revoked';
  stdout(`Key ${keyId} in the keys table: ${planName(key.plan)}, ${state}.`);
  const differing: string[] = [];
  for (const stack of stacks) {
    const { lines, differences } = await regionDifferences(apiGatewayIn(stack.region), stack, key);
    for (const line of lines) stdout(`  ${stack.region}: ${line}`);
    for (const difference of differences) stdout(`  ${stack.region}: DIFFERS: ${difference}`);
    if (differences.length > 0) differing.push(stack.region);
  }
  if (differing.length > 0) {
    throw new Error(
      `Key ${keyId} differs from the keys table in ${differing.join(', ')}: see docs/operations.md, "Keys in every region", for the repair.`,
    );
  }
  stdout(`Every region checked (${stacks.map((stack) => stack.region).join(', ')}) agrees.`);
}
