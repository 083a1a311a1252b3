/**
 * The function of one API operation, with what an operator watches and ships it by.
 */
import { Validations } from 'aws-cdk-lib';
import type { Alarm, IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { Alias } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '../routes.ts';
import { LIVE_ALIAS } from '../stages.ts';
import { alarmOnSum } from './alarms.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

/** How CodeDeploy shifts an operation's traffic to a new version. */
export const DEPLOYMENT_CONFIGS = {
  /** 10% of requests for 5 minutes, then all of them. */
  canary: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  /** All requests at once. */
  'all-at-once': LambdaDeploymentConfig.ALL_AT_ONCE,
} as const;

/** Props of {@link OperationFunction}. */
export interface OperationFunctionProps extends ServiceFunctionProps {
  /** The operation's row of the route table. */
  readonly definition: RouteDefinition;

  /**
   * How CodeDeploy shifts traffic from the live version to a new one.
   *
   * @default 'canary'
   */
  readonly deployment?: keyof typeof DEPLOYMENT_CONFIGS;

  /**
   * Further alarms that roll a deployment back, besides the function's own errors alarm (e.g.
   * the API's 5XX alarm).
   *
   * @default - only the function's errors alarm
   */
  readonly rollbackAlarms?: readonly IAlarm[];
}

/**
 * A {@link ServiceFunction} serving one route: each change publishes a version, the alias
 * {@link LIVE_ALIAS} serves the API, and a CodeDeploy deployment group moves the alias to the new
 * version as `deployment` says, rolling back when the function's errors alarm or any of
 * `rollbackAlarms` fires during the deployment (or the deployment fails or is stopped).
 *
 * The errors alarm fires on the first error in five minutes: an operation answers every client
 * error itself, so a Lambda error is always a fault.
 */
export class OperationFunction extends ServiceFunction {
  /** Fires on the first function error in five minutes. */
  readonly errorsAlarm: Alarm;

  /** The alias API Gateway invokes. */
  readonly alias: Alias;

  /** The CodeDeploy deployment group that shifts the alias. */
  readonly deploymentGroup: LambdaDeploymentGroup;

  constructor(scope: Construct, id: string, props: OperationFunctionProps) {
    super(scope, id, props);
    this.errorsAlarm = alarmOnSum(
      this,
      'Errors',
      this.function.metricErrors(),
      `${props.definition.operationId} function errors`,
    );
    this.alias = new Alias(this, 'Live', {
      aliasName: LIVE_ALIAS,
      version: this.function.currentVersion,
    });
    this.deploymentGroup = new LambdaDeploymentGroup(this, 'Deployment', {
      alias: this.alias,
      deploymentConfig: DEPLOYMENT_CONFIGS[props.deployment ?? 'canary'],
      alarms: [this.errorsAlarm, ...(props.rollbackAlarms ?? [])],
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
    Validations.of(this.deploymentGroup).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "The policy AWS documents for CodeDeploy's Lambda deployments (the limited variant): it reads the alarms and moves aliases of the functions CodeDeploy deploys.",
    });
  }
}
