/**
 * A deployed stage as the commands (keys, restore) see it in tests: CloudFormation and API
 * Gateway mocked with aws-sdk-client-mock (they cannot run here), the stack outputs of one region
 * or of two.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach } from 'vitest';
import {
  regionalStackName,
  STACK_OUTPUTS,
  stackName,
  usagePlanOutputName,
} from '../../infra/stages.ts';
import { PLAN_IDS } from '../../shared/plans.ts';

/** CloudFormation, mocked: a test sets the stack outputs (see `useDeployedStageOf`). */
export const cloudFormation = mockClient(CloudFormationClient);
/** API Gateway, mocked: a test sets its answers and reads its calls. */
export const apiGateway = mockClient(APIGatewayClient);

/** The id of the stage's usage plan of a standard plan, as the mocked stack outputs give it. */
export const usagePlanId = (plan: string) => `usage-plan-${plan}`;

/** The stage's RestApi, as the mocked stack outputs give it. */
export const restApiId = 'rest-api-1';

/** The name of an Enterprise key's own usage plan on the staging stage. */
export const ownPlanName = (keyId: string) => `${stackName('staging')}-enterprise-${keyId}`;

/** Every API Gateway call, in order, as [command, input]. */
export const apiGatewayCalls = () =>
  apiGateway.calls().map((call) => [call.args[0].constructor.name, call.args[0].input]);

/**
 * Before each test of the calling `describe`: a deployed stage whose stack outputs name `local`'s
 * tables (its pets table too when given), `restApiId`, a usage plan per standard plan
 * (`usagePlanId`) and, when given, the admin API at `adminApiUrl()`; and no API Gateway
 * behaviour until the test sets one.
 */
export function useDeployedStageOf(
  local: {
    readonly keysTableName: string;
    readonly countersTableName: string;
    readonly petsTableName?: string;
    readonly auditTableName?: string;
  },
  adminApiUrl?: () => string,
): void {
  beforeEach(() => {
    cloudFormation.reset();
    apiGateway.reset();
    cloudFormation.on(DescribeStacksCommand).callsFake(({ StackName }) => ({
      Stacks: [
        {
          StackName,
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [
            ...(adminApiUrl === undefined
              ? []
              : [{ OutputKey: STACK_OUTPUTS.adminApiBaseUrl, OutputValue: adminApiUrl() }]),
            ...(local.petsTableName === undefined
              ? []
              : [{ OutputKey: STACK_OUTPUTS.petsTableName, OutputValue: local.petsTableName }]),
            { OutputKey: STACK_OUTPUTS.keysTableName, OutputValue: local.keysTableName },
            ...(local.auditTableName === undefined
              ? []
              : [{ OutputKey: STACK_OUTPUTS.auditTableName, OutputValue: local.auditTableName }]),
            { OutputKey: STACK_OUTPUTS.countersTableName, OutputValue: local.countersTableName },
            { OutputKey: STACK_OUTPUTS.restApiId, OutputValue: restApiId },
            ...PLAN_IDS.map((plan) => ({
              OutputKey: usagePlanOutputName(plan),
              OutputValue: usagePlanId(plan),
            })),
          ],
        },
      ],
    }));
  });
}

/** The regions of a mocked staging of two regions, the home region first. */
export const TWO_REGIONS = { home: 'us-east-1', other: 'us-west-2' } as const;

/** The region of the client that sends a mocked command (`callsFake`'s `getClient`). */
export function clientRegion(getClient: unknown): Promise<string> {
  return (getClient as () => APIGatewayClient)().config.region();
}

/**
 * CloudFormation, mocked (after a reset) for a staging of `TWO_REGIONS`: each region's stack
 * (`petstore-staging` in the home region, `petstore-staging-us-west-2`) with the output
 * `Regions`, usage plans `<region>-<plan>`, and `outputs` besides.
 */
export function mockTwoRegionStacks(
  outputs: readonly { OutputKey: string; OutputValue: string }[],
): void {
  const { home, other } = TWO_REGIONS;
  cloudFormation.reset();
  cloudFormation.on(DescribeStacksCommand).callsFake(({ StackName }) => {
    const region = StackName === regionalStackName('staging', other) ? other : home;
    return {
      Stacks: [
        {
          StackName,
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [
            ...outputs,
            { OutputKey: STACK_OUTPUTS.regions, OutputValue: `${home},${other}` },
            ...PLAN_IDS.map((plan) => ({
              OutputKey: usagePlanOutputName(plan),
              OutputValue: `${region}-${plan}`,
            })),
          ],
        },
      ],
    };
  });
}
