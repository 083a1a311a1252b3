/**
 * The rollback command finds each operation's function and deployment group in the stack as CDK
 * synthesizes it (by logical id; unit tests of the command itself are in test/unit/rollback.test.ts).
 */
import { CloudFormationClient, ListStackResourcesCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { findOperations } from '../../infra/cli/rollback/stage.ts';
import { ROUTES } from '../../infra/routes.ts';
import { STAGES, stackName } from '../../infra/stages.ts';
import { logicalId, stageOf, synthesizeStages } from '../support/petstore-app.ts';

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
