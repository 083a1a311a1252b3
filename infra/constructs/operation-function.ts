/**
 * The function of one API operation, with what an operator watches and ships it by.
 */
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '../routes.ts';
import { alarmOnSum } from './alarms.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

/** Props of {@link OperationFunction}. */
export interface OperationFunctionProps extends ServiceFunctionProps {
  /** The operation's row of the route table. */
  readonly definition: RouteDefinition;
}

/**
 * A {@link ServiceFunction} serving one route, with an alarm on its errors (an operation answers
 * every client error itself, so a Lambda error is always a fault).
 */
export class OperationFunction extends ServiceFunction {
  /** Fires on the first function error in five minutes. */
  readonly errorsAlarm: Alarm;

  constructor(scope: Construct, id: string, props: OperationFunctionProps) {
    super(scope, id, props);
    this.errorsAlarm = alarmOnSum(
      this,
      'Errors',
      this.function.metricErrors(),
      `${props.definition.operationId} function errors`,
    );
  }
}
