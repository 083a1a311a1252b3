/**
 * What `npm run rollback` does on a deployed stage: find each operation's function, alias and
 * CodeDeploy deployment group in the stage's stack, stop the deployments in progress, or move the
 * aliases back to their previous versions (docs/operations.md, "Rolling back").
 */
import {
  type CloudFormationClient,
  paginateListStackResources,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import {
  type CodeDeployClient,
  type DeploymentStatus,
  ListDeploymentsCommand,
  StopDeploymentCommand,
} from '@aws-sdk/client-codedeploy';
import {
  GetAliasCommand,
  type LambdaClient,
  paginateListVersionsByFunction,
  UpdateAliasCommand,
} from '@aws-sdk/client-lambda';
import type { RouteDefinition } from '../../routes.ts';
import { LIVE_ALIAS } from '../../stages.ts';
import { cannotReadStack } from '../common/stack-outputs.ts';

/** An operation's resources in a deployed stack (physical names). */
export interface DeployedOperation {
  readonly operationId: RouteDefinition['operationId'];
  readonly functionName: string;
  readonly applicationName: string;
  readonly deploymentGroupName: string;
}

/** The AWS clients the rollback calls. */
export interface RollbackClients {
  readonly cloudFormation: CloudFormationClient;
  readonly codeDeploy: CodeDeployClient;
  readonly lambda: LambdaClient;
}

/** CodeDeploy statuses of a deployment that has not ended. */
const UNFINISHED: DeploymentStatus[] = ['Created', 'Queued', 'InProgress', 'Baking', 'Ready'];

/**
 * The resources of each of `routes` in `stack`, by the logical ids CDK gives them: the
 * function `<constructId><hash>`, its deployment group `<constructId>Deployment<hash>` and that
 * group's application `<constructId>DeploymentApplication<hash>` (an OperationFunction's
 * children).
 *
 * @throws Error naming the stack when it cannot be read (not deployed, no credentials), or the
 *   operation whose resources it lacks.
 */
export async function findOperations(
  cloudFormation: CloudFormationClient,
  stack: string,
  routes: readonly RouteDefinition[],
): Promise<DeployedOperation[]> {
  const resources: StackResourceSummary[] = [];
  try {
    for await (const page of paginateListStackResources(
      { client: cloudFormation },
      { StackName: stack },
    )) {
      resources.push(...(page.StackResourceSummaries ?? []));
    }
  } catch (error) {
    throw cannotReadStack(stack, error);
  }
  return routes.map(({ operationId, constructId }) => {
    const physicalId = (type: string, suffix: string) => {
      const pattern = new RegExp(`^${constructId}${suffix}[0-9A-F]{8}$`);
      const found = resources.find(
        (resource) =>
          resource.ResourceType === type && pattern.test(resource.LogicalResourceId ?? ''),
      )?.PhysicalResourceId;
      if (found === undefined) {
        throw new Error(`Stack ${stack} has no ${type} of ${operationId}: deploy the stage again.`);
      }
      return found;
    };
    return {
      operationId,
      functionName: physicalId('AWS::Lambda::Function', ''),
      applicationName: physicalId('AWS::CodeDeploy::Application', 'DeploymentApplication'),
      deploymentGroupName: physicalId('AWS::CodeDeploy::DeploymentGroup', 'Deployment'),
    };
  });
}

/** The ids of the operation's deployments that have not ended. */
export async function unfinishedDeployments(
  codeDeploy: CodeDeployClient,
  operation: DeployedOperation,
): Promise<string[]> {
  const { deployments = [] } = await codeDeploy.send(
    new ListDeploymentsCommand({
      applicationName: operation.applicationName,
      deploymentGroupName: operation.deploymentGroupName,
      includeOnlyStatuses: UNFINISHED,
    }),
  );
  return deployments;
}

/**
 * Stops a deployment with automatic rollback: CodeDeploy moves the alias back to the version it
 * served before, and CloudFormation rolls the stack update back.
 *
 * @returns CodeDeploy's status of the stop (`Pending` or `Succeeded`) and its message.
 */
export async function stopDeployment(
  codeDeploy: CodeDeployClient,
  deploymentId: string,
): Promise<string> {
  const { status, statusMessage } = await codeDeploy.send(
    new StopDeploymentCommand({ deploymentId, autoRollbackEnabled: true }),
  );
  return [status, statusMessage].filter(Boolean).join(': ');
}

/** Where an alias is and where a rollback moves it: numbered versions of the function. */
export interface AliasMove {
  readonly from: string;
  readonly to: string;
}

/**
 * The version before the one the operation's alias `live` serves: the highest published version
 * below it (the stack retains old versions).
 *
 * @throws Error when the alias already serves the oldest version there is.
 */
export async function previousVersion(
  lambda: LambdaClient,
  operation: DeployedOperation,
): Promise<AliasMove> {
  const { FunctionVersion: from = '' } = await lambda.send(
    new GetAliasCommand({ FunctionName: operation.functionName, Name: LIVE_ALIAS }),
  );
  let to: number | undefined;
  for await (const page of paginateListVersionsByFunction(
    { client: lambda },
    { FunctionName: operation.functionName },
  )) {
    for (const { Version } of page.Versions ?? []) {
      const version = Number(Version);
      if (version < Number(from) && (to === undefined || version > to)) to = version;
    }
  }
  if (to === undefined) {
    throw new Error(
      `${operation.operationId}: alias ${LIVE_ALIAS} serves version ${from}, the oldest version of ${operation.functionName}; there is nothing to roll back to.`,
    );
  }
  return { from, to: String(to) };
}

/** Points the operation's alias `live` at `move.to`, all traffic (no weighted second version). */
export async function moveAlias(
  lambda: LambdaClient,
  operation: DeployedOperation,
  move: AliasMove,
): Promise<void> {
  await lambda.send(
    new UpdateAliasCommand({
      FunctionName: operation.functionName,
      Name: LIVE_ALIAS,
      FunctionVersion: move.to,
      RoutingConfig: { AdditionalVersionWeights: {} },
    }),
  );
}
