/**
 * The deployments of both stages' stacks, synthesized with cdk.json's flags: each operation's
 * canary deployment behind its live alias, rolled back on its own alarms, and the rollback command
 * finding each operation's function and deployment group by logical id (unit tests of the command
 * itself are in test/unit/rollback.test.ts).
 */
import { CloudFormationClient, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { Match } from 'aws-cdk-lib/assertions';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { findOperations } from '../../infra/cli/rollback/deployed-operations.ts';
import { ROUTES } from '../../infra/routes.ts';
import { SECRET_SCANNING_ROUTE } from '../../infra/secret-scanning-route.ts';
import { STAGE_SETTINGS, STAGES, stackName } from '../../infra/stages.ts';
import { SERVER_ERROR_RESPONSES, versionDimensions } from '../../shared/metrics.ts';
import { logicalId, OPERATION_IDS, stageOf, synthesizeStages } from '../support/petstore-app.ts';

synthesizeStages();

describe.each(STAGES)('%s stack, as npm run rollback reads it', (stage) => {
  const { stack, template } = stageOf(stage);

  it("finds every operation's function, deployment group and application", async () => {
    // CloudFormation lists each resource by logical id; here the physical id is the logical id.
    const cloudFormation = mockClient(CloudFormationClient);
    cloudFormation.on(ListStackResourcesCommand, { StackName: stackName(stage) }).resolves({
      StackResourceSummaries: Object.entries(template().toJSON().Resources).map(
        ([id, resource]) => ({
          LogicalResourceId: id,
          PhysicalResourceId: id,
          ResourceType: (resource as { Type: string }).Type,
          ResourceStatus: 'CREATE_COMPLETE',
          LastUpdatedTimestamp: new Date(),
        }),
      ),
    });

    const operations = await findOperations(new CloudFormationClient({}), stackName(stage), ROUTES);

    expect(operations).toEqual(
      ROUTES.map(({ operationId, constructId }) => ({
        operationId,
        functionName: logicalId(stack(), constructId),
        applicationName: logicalId(stack(), `${constructId}/Deployment/Application`),
        deploymentGroupName: logicalId(stack(), `${constructId}/Deployment`),
      })),
    );
    cloudFormation.restore();
  });
});

describe.each(STAGES)('the %s stage', (stage) => {
  const { stack, template } = stageOf(stage);

  describe('canary deployments', () => {
    it(`publishes each operation as a version behind the alias live, shifted as a ${STAGE_SETTINGS[stage].deployment}`, () => {
      const config =
        STAGE_SETTINGS[stage].deployment === 'canary'
          ? 'CodeDeployDefault.LambdaCanary10Percent5Minutes'
          : { Ref: logicalId(stack(), 'ShortCanaryDeploymentConfig') };
      template().resourceCountIs('AWS::Lambda::Alias', ROUTES.length);
      template().resourceCountIs('AWS::CodeDeploy::DeploymentGroup', ROUTES.length);
      for (const id of OPERATION_IDS) {
        const alias = template().toJSON().Resources[logicalId(stack(), `${id}/Live`)];
        expect(alias.Properties).toMatchObject({
          Name: 'live',
          FunctionName: { Ref: logicalId(stack(), id) },
          FunctionVersion: {
            'Fn::GetAtt': [expect.stringMatching(`^${id}CurrentVersion`), 'Version'],
          },
        });
        expect(alias.UpdatePolicy.CodeDeployLambdaAliasUpdate).toMatchObject({
          DeploymentGroupName: { Ref: logicalId(stack(), `${id}/Deployment`) },
        });
        template().hasResourceProperties('AWS::CodeDeploy::DeploymentGroup', {
          DeploymentConfigName: config,
          AlarmConfiguration: {
            Enabled: true,
            Alarms: [
              { Name: { Ref: logicalId(stack(), `${id}/ServerErrorsAlarm`) } },
              { Name: { Ref: logicalId(stack(), `${id}/ErrorsAlarm`) } },
            ],
          },
          AutoRollbackConfiguration: {
            Enabled: true,
            Events: Match.arrayWith([
              'DEPLOYMENT_FAILURE',
              'DEPLOYMENT_STOP_ON_REQUEST',
              'DEPLOYMENT_STOP_ON_ALARM',
            ]),
          },
        });
      }
    });

    it('keeps the versions a deploy replaces, so that an alias can be moved back to them', () => {
      const versions = Object.values(template().findResources('AWS::Lambda::Version'));

      expect(versions).toHaveLength(ROUTES.length);
      for (const version of versions) {
        expect(version).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      }
    });

    it('staging shifts half of the requests for 3 minutes, production 10% for 5 minutes', () => {
      const canaries = template().findResources('AWS::CodeDeploy::DeploymentConfig');
      if (STAGE_SETTINGS[stage].deployment === 'canary') {
        expect(canaries).toEqual({});
        return;
      }
      expect(Object.values(canaries)).toEqual([
        expect.objectContaining({
          Properties: {
            ComputePlatform: 'Lambda',
            TrafficRoutingConfig: {
              Type: 'TimeBasedCanary',
              TimeBasedCanary: { CanaryInterval: 3, CanaryPercentage: 50 },
            },
          },
        }),
      ]);
    });

    it("rolls back on the first 5xx answer of the version being deployed, counted from the function's own metric", () => {
      expect(Object.keys(versionDimensions('f', '1'))).toEqual(['functionName', 'functionVersion']);
      for (const id of OPERATION_IDS) {
        const alarm = template().toJSON().Resources[logicalId(stack(), `${id}/ServerErrorsAlarm`)];
        // Exactly the dimensions countServerErrors writes (test/dynamodb/middleware-errors.test.ts);
        // CloudWatch matches them as a set, CDK sorts them by name.
        expect(alarm.Properties).toMatchObject({
          Namespace: 'Petstore',
          MetricName: SERVER_ERROR_RESPONSES,
          Dimensions: [
            { Name: 'functionName', Value: { Ref: logicalId(stack(), id) } },
            {
              Name: 'functionVersion',
              Value: { 'Fn::GetAtt': [expect.stringMatching(`^${id}CurrentVersion`), 'Version'] },
            },
            { Name: 'service', Value: 'petstore' },
            { Name: 'stage', Value: stage },
          ],
          Statistic: 'Sum',
          Period: 60,
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
        });
        expect(Object.keys(versionDimensions('f', '1'))).toEqual([
          'functionName',
          'functionVersion',
        ]);
        template().hasResourceProperties('AWS::CloudWatch::Alarm', {
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(stack(), id) } }],
          Period: 60,
        });
      }
    });

    it("lets API Gateway invoke only the alias of each operation, not its bare function, and the leaked-key endpoint's function (no canary)", () => {
      const role = template().toJSON().Resources[logicalId(stack(), 'Api/InvokeRole')];
      const [policy] = role.Properties.Policies;
      const resources = policy.PolicyDocument.Statement.flatMap(
        (statement: { Action: string; Resource: unknown }) => {
          expect(statement.Action).toBe('lambda:InvokeFunction');
          return [statement.Resource].flat();
        },
      );

      expect(role.Properties.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({
        Service: 'apigateway.amazonaws.com',
      });
      const aliases = OPERATION_IDS.map((id) => ({ Ref: logicalId(stack(), `${id}/Live`) }));
      const scanning = {
        'Fn::GetAtt': [logicalId(stack(), `${SECRET_SCANNING_ROUTE.constructId}/Default`), 'Arn'],
      };
      expect(resources).toHaveLength(aliases.length + 1);
      expect(resources).toEqual(expect.arrayContaining([...aliases, scanning]));
    });
  });
});
