/**
 * The keys command run in-process on the tables a harness gives it (`keys-command.ts`: DynamoDB
 * Local; `in-memory-keys-command.ts`: in-memory adapters), with CloudFormation and API Gateway
 * mocked, and the fixtures of a "deployed stage" whose stack outputs name those tables.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach } from 'vitest';
import { type KeysCommandDependencies, runKeysCommand } from '../../infra/cli/keys/program.ts';
import { STACK_OUTPUTS, stackName, usagePlanOutputName } from '../../infra/stages.ts';
import type { KeyAdministration } from '../../shared/keys/key-administration.ts';
import { PLAN_IDS, type RequestLimits } from '../../shared/plans.ts';

/** Where the command's stores come from: the local stack's tables, and how to open a table. */
export type KeysTables = Pick<
  KeysCommandDependencies,
  'local' | 'openKeyStore' | 'openRateLimitBans' | 'openKeyUsage'
>;

/** CloudFormation, mocked: a test sets the stack outputs (see `useDeployedStageOf`). */
export const cloudFormation = mockClient(CloudFormationClient);
/** API Gateway, mocked: a test sets its answers and reads its calls. */
export const apiGateway = mockClient(APIGatewayClient);

/**
 * The command on `tables`: `keysCommand(args, local?)` runs it and returns its exit code, stdout
 * and stderr as lines, and the last line of stdout as `token`.
 */
export function keysCommandOn(tables: KeysTables) {
  return async function keysCommand(
    args: string[],
    local: KeysCommandDependencies['local'] = tables.local,
  ) {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const dependencies: KeysCommandDependencies = {
      ...tables,
      local,
      cloudFormation: new CloudFormationClient({ region: 'us-east-1' }),
      apiGateway: new APIGatewayClient({ region: 'us-east-1' }),
      stdout: (text) => stdout.push(...text.split('\n')),
      stderr: (text) => stderr.push(...text.split('\n')),
    };
    const code = await runKeysCommand(args, dependencies);
    return { code, stdout, stderr, token: stdout.at(-1) ?? '' };
  };
}

/**
 * Fixtures on `keys`: `enterpriseKey(limits?)` creates an Enterprise key (default 600 a minute,
 * 100,000 a day); `activeKeyIds()` lists the ids of the keys not revoked.
 */
export function keyFixtures(keys: KeyAdministration) {
  return {
    enterpriseKey: (limits: RequestLimits = { perMinute: 600, perDay: 100_000 }) =>
      keys.createKey({ plan: 'enterprise', owner: 'Big Pets Inc', limits }),
    activeKeyIds: async (): Promise<string[]> =>
      (await keys.listKeys()).filter((key) => !key.revokedAt).map((key) => key.keyId),
  };
}

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
 * tables (its pets table too when given), `restApiId` and a usage plan per standard plan
 * (`usagePlanId`), and no API Gateway behaviour until the test sets one.
 */
export function useDeployedStageOf(
  local: Pick<KeysTables['local'], 'keysTableName' | 'countersTableName'> & {
    readonly petsTableName?: string;
    readonly auditTableName?: string;
  },
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
