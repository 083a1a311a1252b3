import {
  CloudFormationClient,
  DescribeStacksCommand,
  ListStackResourcesCommand,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import {
  CodeDeployClient,
  ListDeploymentsCommand,
  StopDeploymentCommand,
} from '@aws-sdk/client-codedeploy';
import {
  GetAliasCommand,
  LambdaClient,
  ListVersionsByFunctionCommand,
  UpdateAliasCommand,
} from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { runRollbackCommand } from '../../infra/cli/rollback/rollback-program.ts';
import { ROUTES } from '../../infra/routes.ts';
import { describedStack } from '../support/cloudformation.ts';

const cloudFormation = mockClient(CloudFormationClient);
const codeDeploy = mockClient(CodeDeployClient);
const lambda = mockClient(LambdaClient);

/** Physical name of an operation's function in the staging stack. */
const functionName = (constructId: string) => `petstore-staging-${constructId}2F3A9C1B-Xk2`;

/** What ListStackResources lists for each operation, as CDK names it, among look-alikes. */
function stackResources(): StackResourceSummary[] {
  return ROUTES.flatMap(({ constructId }) =>
    [
      ['AWS::Lambda::Function', '2F3A9C1B', functionName(constructId)],
      ['AWS::Lambda::Alias', 'Live8C1D2E3F', `arn:…:function:${functionName(constructId)}:live`],
      ['AWS::Lambda::Version', 'CurrentVersion5A6B7C8Dabcdef', `arn:…:${constructId}:7`],
      ['AWS::IAM::Role', 'Role1A2B3C4D', `${constructId}-role`],
      ['AWS::CodeDeploy::Application', 'DeploymentApplication9E8D7C6B', `${constructId}-app`],
      ['AWS::CodeDeploy::DeploymentGroup', 'Deployment0A1B2C3D', `${constructId}-group`],
    ].map(([ResourceType, suffix, PhysicalResourceId]) => ({
      ResourceType,
      LogicalResourceId: `${constructId}${suffix}`,
      PhysicalResourceId,
      ResourceStatus: 'UPDATE_COMPLETE',
      LastUpdatedTimestamp: new Date(),
    })),
  );
}

/** Runs `npm run rollback -- <args>` in-process on the mocked clients. */
async function rollback(args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runRollbackCommand(args, {
    clients: (region) => ({
      cloudFormation: new CloudFormationClient({ region }),
      codeDeploy: new CodeDeployClient({ region }),
      lambda: new LambdaClient({ region }),
    }),
    homeRegion: async () => 'eu-west-1',
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
  });
  return { code, stdout, stderr };
}

const allCalls = () => [...cloudFormation.calls(), ...codeDeploy.calls(), ...lambda.calls()];

/** The stacks' outputs, for DescribeStacks: one region (no Regions output) unless a test says. */
function describeStacks(outputs: Record<string, string> = {}): void {
  cloudFormation
    .on(DescribeStacksCommand)
    .callsFake(({ StackName }) => describedStack(StackName, outputs));
}

beforeEach(() => {
  for (const mock of [cloudFormation, codeDeploy, lambda]) mock.reset();
  describeStacks();
  const resources = stackResources();
  // Two pages, as ListStackResources pages a stack of many resources.
  cloudFormation
    .on(ListStackResourcesCommand, { StackName: 'petstore-staging', NextToken: undefined })
    .resolves({ StackResourceSummaries: resources.slice(0, 7), NextToken: 'page2' })
    .on(ListStackResourcesCommand, { StackName: 'petstore-staging', NextToken: 'page2' })
    .resolves({ StackResourceSummaries: resources.slice(7) });
  codeDeploy.on(ListDeploymentsCommand).resolves({ deployments: [] });
  codeDeploy.on(StopDeploymentCommand).resolves({ status: 'Pending' });
  lambda.on(GetAliasCommand).resolves({ Name: 'live', FunctionVersion: '7' });
  lambda
    .on(ListVersionsByFunctionCommand, { Marker: undefined })
    .resolves({ Versions: [{ Version: '$LATEST' }, { Version: '5' }], NextMarker: 'more' })
    .on(ListVersionsByFunctionCommand, { Marker: 'more' })
    .resolves({ Versions: [{ Version: '6' }, { Version: '7' }] });
  lambda.on(UpdateAliasCommand).resolves({});
});

describe('npm run rollback', () => {
  it('stops a deployment in progress with automatic rollback, and moves no alias', async () => {
    codeDeploy
      .on(ListDeploymentsCommand, {
        applicationName: 'CreatePetFunction-app',
        deploymentGroupName: 'CreatePetFunction-group',
      })
      .resolves({ deployments: ['d-CANARY123'] });

    const { code, stdout, stderr } = await rollback(['--stage', 'staging']);

    expect({ code, stderr }).toEqual({ code: 0, stderr: [] });
    expect(
      codeDeploy.commandCalls(StopDeploymentCommand).map((call) => call.args[0].input),
    ).toEqual([{ deploymentId: 'd-CANARY123', autoRollbackEnabled: true }]);
    expect(codeDeploy.commandCalls(ListDeploymentsCommand)[0]?.args[0].input).toMatchObject({
      includeOnlyStatuses: expect.arrayContaining(['InProgress', 'Baking']),
    });
    expect(lambda.commandCalls(UpdateAliasCommand)).toEqual([]);
    expect(stdout).toEqual([expect.stringMatching(/^createPet: stopped deployment d-CANARY123 /)]);
  });

  it('moves each alias live back to the version before the current one when no deployment runs', async () => {
    const { code, stdout } = await rollback(['--stage', 'staging']);

    expect(code).toBe(0);
    expect(lambda.commandCalls(UpdateAliasCommand).map((call) => call.args[0].input)).toEqual(
      ROUTES.map(({ constructId }) => ({
        FunctionName: functionName(constructId),
        Name: 'live',
        FunctionVersion: '6',
        RoutingConfig: { AdditionalVersionWeights: {} },
      })),
    );
    expect(codeDeploy.commandCalls(StopDeploymentCommand)).toEqual([]);
    expect(stdout).toEqual(
      ROUTES.map(({ operationId }) =>
        expect.stringMatching(
          new RegExp(`^${operationId}: moved alias live .* from version 7 to 6\\.$`),
        ),
      ),
    );
  });

  it('fails with a clear message, and moves nothing, when an alias already serves the oldest version', async () => {
    lambda
      .on(GetAliasCommand, { FunctionName: functionName('GetPetFunction') })
      .resolves({ Name: 'live', FunctionVersion: '5' });

    const { code, stdout, stderr } = await rollback(['--stage', 'staging']);

    expect(code).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([
      `rollback: getPet: alias live serves version 5, the oldest version of ${functionName('GetPetFunction')}; there is nothing to roll back to.`,
    ]);
    expect(lambda.commandCalls(UpdateAliasCommand)).toEqual([]);
  });

  it('touches only the operation named by --operation', async () => {
    const { code } = await rollback(['--stage', 'staging', '--operation', 'getPet']);

    expect(code).toBe(0);
    expect(codeDeploy.commandCalls(ListDeploymentsCommand).map((c) => c.args[0].input)).toEqual([
      expect.objectContaining({ deploymentGroupName: 'GetPetFunction-group' }),
    ]);
    expect(
      lambda.commandCalls(UpdateAliasCommand).map((c) => c.args[0].input.FunctionName),
    ).toEqual([functionName('GetPetFunction')]);
  });

  it.each([
    ['no stage', []],
    ['an unknown stage', ['--stage', 'prod']],
    ['an unknown operation', ['--stage', 'staging', '--operation', 'deletePet']],
  ])('exits 2 with the usage and calls nothing for %s', async (_, args) => {
    const { code, stderr } = await rollback(args);

    expect(code).toBe(2);
    expect(stderr[0]).toMatch(/^rollback: error: /);
    expect(stderr.join('\n')).toContain('Usage: npm run rollback -- [options]');
    expect(allCalls()).toEqual([]);
  });

  it('exits 1 and says the stage may not be deployed when its stack cannot be read', async () => {
    cloudFormation
      .on(ListStackResourcesCommand)
      .rejects(new Error('Stack with id petstore-production does not exist'));

    const { code, stderr } = await rollback(['--stage', 'production']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      'rollback: Cannot read stack petstore-production (is the stage deployed, and are AWS credentials and region set?): Stack with id petstore-production does not exist',
    ]);
  });

  it("rolls back only the region given, through that region's clients and its own stack", async () => {
    describeStacks({ Regions: 'eu-west-1,eu-central-1' });
    cloudFormation
      .on(ListStackResourcesCommand, { StackName: 'petstore-staging-eu-central-1' })
      .resolves({ StackResourceSummaries: stackResources() });

    const { code, stdout } = await rollback(['--stage', 'staging', '--region', 'eu-central-1']);

    expect(code).toBe(0);
    const regions = async (calls: { thisValue: unknown }[]) =>
      Promise.all(
        calls.map((call) => (call.thisValue as LambdaClient).config.region() as Promise<string>),
      );
    expect(
      cloudFormation.commandCalls(ListStackResourcesCommand).map((c) => c.args[0].input.StackName),
    ).toEqual(['petstore-staging-eu-central-1']);
    expect(new Set(await regions(cloudFormation.commandCalls(ListStackResourcesCommand)))).toEqual(
      new Set(['eu-central-1']),
    );
    expect(new Set(await regions(lambda.commandCalls(UpdateAliasCommand)))).toEqual(
      new Set(['eu-central-1']),
    );
    expect(lambda.commandCalls(UpdateAliasCommand)).toHaveLength(ROUTES.length);
    expect(stdout.at(-1)).toBe(
      "Rolled back eu-central-1 only; the stage's other regions (eu-west-1) take --region.",
    );
  });

  it('rolls back the home region by default, and refuses a region the stage lacks', async () => {
    describeStacks({ Regions: 'eu-west-1,eu-central-1' });

    const home = await rollback(['--stage', 'staging']);
    const elsewhere = await rollback(['--stage', 'staging', '--region', 'us-east-1']);

    expect(home.code).toBe(0);
    expect(home.stdout.at(-1)).toBe(
      "Rolled back eu-west-1 only; the stage's other regions (eu-central-1) take --region.",
    );
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toEqual([
      'rollback: us-east-1 is not a region of staging, whose regions are eu-west-1, eu-central-1.',
    ]);
  });

  it('prints its help and exits 0 for --help', async () => {
    const { code, stdout } = await rollback(['--help']);

    expect(code).toBe(0);
    // commander wraps the list of choices where it is long.
    const choices = ROUTES.map(({ operationId }) => `"${operationId}"`).join(',\\s+');
    expect(stdout.join('\n')).toMatch(
      new RegExp(`--operation <operationId>.*\n.*choices: ${choices}`, 's'),
    );
  });
});
