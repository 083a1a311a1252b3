/**
 * The function of one API operation, with what an operator watches and ships it by.
 */
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  type ILambdaDeploymentConfig,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { Alias } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import * as v from 'valibot';
import { SERVER_ERROR_RESPONSES, versionDimensions } from '../../shared/metrics.ts';
import type { BanPolicy } from '../../shared/rate-limit/rate-limiter.ts';
import type { RouteDefinition } from '../routes.ts';
import { LIVE_ALIAS } from '../stages.ts';
import { alarmOnSum, DEPLOYMENT_ALARM_PERIOD } from './alarms.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

/** Construct id, at the stack's scope, of the short canary's deployment config. */
const SHORT_CANARY_ID = 'ShortCanaryDeploymentConfig';

/** How CodeDeploy shifts an operation's traffic to a new version, by the stack's `scope`. */
export const DEPLOYMENT_CONFIGS = {
  /** 10% of requests for 5 minutes, then all of them (CodeDeploy's predefined canary). */
  canary: (_scope: Construct): ILambdaDeploymentConfig =>
    LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
  /**
   * 50% of requests for 3 minutes, then all of them: a stage with little traffic still sends the
   * new version requests to judge. One config per stack, shared by its operations.
   */
  'short-canary': (scope: Construct): ILambdaDeploymentConfig => {
    const stack = Stack.of(scope);
    const existing = stack.node.tryFindChild(SHORT_CANARY_ID) as LambdaDeploymentConfig | undefined;
    return (
      existing ??
      new LambdaDeploymentConfig(stack, SHORT_CANARY_ID, {
        trafficRouting: TrafficRouting.timeBasedCanary({
          interval: Duration.minutes(3),
          percentage: 50,
        }),
      })
    );
  },
} as const;

/** Props of {@link OperationFunction}. */
export interface OperationFunctionProps extends ServiceFunctionProps {
  /** The operation's row of the route table. */
  readonly definition: RouteDefinition;

  /** Builds one of the service's own (Powertools EMF) metrics with the stage's dimensions. */
  readonly serviceMetric: (metricName: string) => Metric;

  /**
   * How CodeDeploy shifts traffic from the live version to a new one.
   *
   * @default 'canary'
   */
  readonly deployment?: keyof typeof DEPLOYMENT_CONFIGS;
}

/**
 * A {@link ServiceFunction} serving one route: each change publishes a version (the previous ones
 * are kept), the alias {@link LIVE_ALIAS} serves the API, and a CodeDeploy deployment group moves
 * the alias to the new version as `deployment` says, rolling back when one of the operation's own
 * alarms fires during the shift (or the deployment fails or is stopped):
 *
 * - `ServerErrorsAlarm`: the first 5xx answer of the version being deployed in a minute
 *   (`SERVER_ERROR_RESPONSES`, which the function emits per 5xx answer with its version);
 * - `ErrorsAlarm`: the first Lambda error (a throw past the error handler, a timeout) in a minute:
 *   an operation answers every client error itself, so a Lambda error is always a fault.
 *
 * Alarms on other operations or the whole API never guard it: they would roll back an unrelated
 * fix, and the API's `Ref` to its stage would close a dependency cycle (method → alias →
 * deployment group → alarm → stage → deployment → method).
 */
export class OperationFunction extends ServiceFunction {
  /** Fires on the first function error in a minute. */
  readonly errorsAlarm: Alarm;

  /** Fires on the first 5xx answer of the function's current version in a minute. */
  readonly serverErrorsAlarm: Alarm;

  /** The alias API Gateway invokes. */
  readonly alias: Alias;

  /** The CodeDeploy deployment group that shifts the alias. */
  readonly deploymentGroup: LambdaDeploymentGroup;

  constructor(scope: Construct, id: string, props: OperationFunctionProps) {
    super(scope, id, props);
    const { operationId } = props.definition;
    const version = this.function.currentVersion;
    this.errorsAlarm = alarmOnSum(
      this,
      'Errors',
      this.function.metricErrors(),
      `${operationId} function errors`,
      DEPLOYMENT_ALARM_PERIOD,
    );
    const serverErrors = props.serviceMetric(SERVER_ERROR_RESPONSES);
    this.serverErrorsAlarm = alarmOnSum(
      this,
      'ServerErrors',
      serverErrors.with({
        dimensionsMap: {
          ...serverErrors.dimensions,
          ...versionDimensions(this.function.functionName, version.version),
        },
      }),
      `${operationId} 5xx answers of its current version`,
      DEPLOYMENT_ALARM_PERIOD,
    );
    this.alias = new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version });
    this.deploymentGroup = new LambdaDeploymentGroup(this, 'Deployment', {
      alias: this.alias,
      deploymentConfig: DEPLOYMENT_CONFIGS[props.deployment ?? 'canary'](this),
      alarms: [this.serverErrorsAlarm, this.errorsAlarm],
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
    Validations.of(this.deploymentGroup).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "The policy AWS documents for CodeDeploy's Lambda deployments (the limited variant): it reads the alarms and moves aliases of the functions CodeDeploy deploys.",
    });
  }
}

/** A ban policy's figures: whole numbers >= 1. */
const BanPolicySchema = v.object({
  threshold: v.pipe(v.number(), v.integer(), v.minValue(1)),
  durationSeconds: v.pipe(v.number(), v.integer(), v.minValue(1)),
});

/**
 * Checks the `banPolicy` prop.
 *
 * @returns The policy, unchanged.
 * @throws Error naming the first field that is not a whole number >= 1.
 */
export function validBanPolicy(policy: BanPolicy): BanPolicy {
  const result = v.safeParse(BanPolicySchema, policy);
  if (result.success) return result.output;
  const [issue] = result.issues;
  throw new Error(
    `banPolicy.${v.getDotPath(issue)} must be a whole number >= 1; got ${String(issue.input)}`,
  );
}
