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
 * An alarm when `metric`'s sum over {@link ALARM_PERIOD} reaches 1; no data counts as fine. A math
 * expression is taken as it is (its metrics' statistics already Sum), over the same period.
 *
 * @param scope Where the alarm is created, as `${id}Alarm`.
 * @param what What is counted, for the description, e.g. `function errors`.
 */
export function alarmOnSum(
  scope: Construct,
  id: string,
  metric: Metric | MathExpression,
  what: string,
): Alarm {
  const minutes = ALARM_PERIOD.toMinutes();
  const summed =
    metric instanceof MathExpression
      ? metric.with({ period: ALARM_PERIOD })
      : metric.with({ statistic: 'Sum', period: ALARM_PERIOD });
  return summed.createAlarm(scope, `${id}Alarm`, {
    alarmDescription: `${Stack.of(scope).stackName}: ${what} in the last ${minutes} minutes`,
    threshold: 1,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
}
