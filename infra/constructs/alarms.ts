/**
 * How the stack's alarms are made: one shape for every "this should never happen" count, so that
 * each construct that owns a metric also owns its alarm.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import {
  type Alarm,
  ComparisonOperator,
  MathExpression,
  type Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';

/** Alarms look at sums over this period and fire on the first bad one. */
export const ALARM_PERIOD = Duration.minutes(5);

/**
 * The period of the alarms that guard a deployment: short enough for a bad version to trip them
 * within its canary interval.
 */
export const DEPLOYMENT_ALARM_PERIOD = Duration.minutes(1);

/**
 * An alarm when `metric`'s sum over `period` reaches 1; no data counts as fine. A math expression
 * is taken as it is (its metrics' statistics already Sum), over the same period.
 *
 * @param scope Where the alarm is created, as `${id}Alarm`.
 * @param what What is counted, for the description, e.g. `function errors`.
 * @param period The period summed, whole minutes.
 * @default period ALARM_PERIOD (5 minutes)
 */
export function alarmOnSum(
  scope: Construct,
  id: string,
  metric: Metric | MathExpression,
  what: string,
  period: Duration = ALARM_PERIOD,
): Alarm {
  const minutes = period.toMinutes();
  const summed =
    metric instanceof MathExpression
      ? metric.with({ period })
      : metric.with({ statistic: 'Sum', period });
  const last = minutes === 1 ? 'minute' : `${minutes} minutes`;
  return summed.createAlarm(scope, `${id}Alarm`, {
    alarmDescription: `${Stack.of(scope).stackName}: ${what} in the last ${last}`,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
