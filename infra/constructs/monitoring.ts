/**
 * What reaches an operator: the stage's alarm topic (every alarm of the stack notifies it) and its
 * dashboard.
 */
import {
  ArnFormat,
  Aspects,
  Aws,
  Duration,
  type IAspect,
  type RemovalPolicy,
  Stack,
} from 'aws-cdk-lib';
import {
  Alarm,
  Dashboard,
  GraphWidget,
  type IMetric,
  MathExpression,
  type Metric,
  TextWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';
import type { TableDefinition } from '../../shared/dynamodb/tables.ts';
import { RATE_LIMIT_METRICS } from '../../shared/metrics.ts';
import { ALARM_PERIOD, alarmOnSum } from './alarms.ts';
import type { PetstoreApi } from './petstore-api.ts';
import type { ServiceFunction } from './service-function.ts';
import { denyGrantsExceptForAwsResources } from './stage-key.ts';

/** Props of {@link Monitoring}. */
export interface MonitoringProps {
  /** The stage's API: requests, errors, latency, authorizer failures. */
  readonly api: PetstoreApi;

  /** Every function of the stage, the authorizer's included. */
  readonly functions: readonly ServiceFunction[];

  /** The stage's tables: consumed capacity and throttles, one throttle alarm each and per GSI. */
  readonly tables: ReadonlyMap<TableDefinition, ITable>;

  /** Builds one of the service's own (Powertools EMF) metrics with the stage's dimensions. */
  readonly serviceMetric: (metricName: string) => Metric;

  /**
   * An e-mail address subscribed to the alarm topic (it must confirm the subscription).
   *
   * @default - no subscription: subscribe on-call tooling to the `AlarmTopicArn` output
   */
  readonly alarmEmail?: string;

  /** What happens to the topic's KMS key when the stack goes. */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * The stage's alarm topic, encrypted with a customer managed KMS key whose policy lets CloudWatch
 * use it, and whose topic policy lets CloudWatch alarms of the stack's account and region publish
 * (over TLS only); every alarm of the stack (found by an aspect, so no alarm can be missed) sends
 * ALARM and OK to it. Alarms of its own: DynamoDB throttling of every table and of every GSI, and
 * the rate limiter failing open. A dashboard named after the stack: API requests, 4XX, 5XX and
 * latency; each function's invocations, errors, duration, throttles and concurrency; each table's
 * consumed capacity and throttles (its GSIs' too); the rate limiter's refusals, bans and
 * fail-opens; the authorizer's failures.
 *
 * @throws Error when `alarmEmail` is not an e-mail address.
 */
export class Monitoring extends Construct {
  /** The topic every alarm of the stack notifies. */
  readonly topic: Topic;

  /** The stage's dashboard. */
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    if (props.alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(props.alarmEmail)) {
      throw new Error(
        `alarmEmail must be an e-mail address such as ops@example.com; got '${props.alarmEmail}'`,
      );
    }
    const stack = Stack.of(this);
    const key = new Key(this, 'AlarmTopicKey', {
      description: `${stack.stackName}: encrypts the alarm topic`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    // CloudWatch publishes to an encrypted topic only when the key lets it use the data key. As AWS
    // documents it, unconditioned: the topic policy below is what limits who may publish.
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );
    denyGrantsExceptForAwsResources(key);
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `${stack.stackName} alarms`,
      masterKey: key,
      enforceSSL: true,
    });
    // A topic policy replaces SNS's default one: without this statement no alarm can publish.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowAlarmsOfThisAccountAndRegion',
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    Aspects.of(stack).add(new NotifyOnAlarm(new SnsAction(this.topic)));

    for (const [definition, table] of props.tables) {
      alarmOnSum(
        this,
        `${definition.constructId}Throttles`,
        throttleEvents(table),
        `${definition.constructId} throttled requests (reads and writes)`,
      );
      // A GSI's throttling has metrics of its own, and a throttled index write throttles the
      // table's write too.
      for (const { indexName } of definition.globalSecondaryIndexes) {
        alarmOnSum(
          this,
          `${definition.constructId}-${indexName}Throttles`,
          throttleEvents(table, indexName),
          `${definition.constructId} ${indexName} throttled requests (reads and writes)`,
        );
      }
    }
    // Failing open keeps the API up but uncounted; ops must hear of it at once.
    alarmOnSum(
      this,
      'RateLimiterUnavailable',
      props.serviceMetric(RATE_LIMIT_METRICS.unavailable),
      'requests admitted uncounted because the rate limiter could not reach its counters table',
    );

    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName: stack.stackName,
      defaultInterval: Duration.hours(3),
    });
    this.addWidgets(props);
  }

  /** The dashboard's URL in the CloudWatch console of the stack's region. */
  get dashboardUrl(): string {
    return `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${this.dashboard.dashboardName}`;
  }

  private addWidgets({ api, functions, tables, serviceMetric }: MonitoringProps): void {
    const stage = api.restApi.deploymentStage;
    const sum = { statistic: 'Sum', period: Duration.minutes(1) };
    const byFunction = (title: string, metric: (fn: ServiceFunction) => IMetric) =>
      new GraphWidget({ title, width: 8, left: functions.map(metric) });
    const fnMetric = (name: string, statistic: string) => (fn: ServiceFunction) =>
      fn.function.metric(name, { statistic, period: Duration.minutes(1), label: fn.node.id });
    this.dashboard.addWidgets(
      new TextWidget({ markdown: `# ${Stack.of(this).stackName}`, width: 24, height: 1 }),
      new GraphWidget({
        title: 'API requests, 4XX, 5XX',
        width: 12,
        left: [
          stage.metricCount({ ...sum, label: 'requests' }),
          stage.metricClientError({ ...sum, label: '4XX' }),
          stage.metricServerError({ ...sum, label: '5XX' }),
        ],
      }),
      new GraphWidget({
        title: 'API latency (ms)',
        width: 12,
        left: ['p50', 'p99'].map((statistic) =>
          stage.metricLatency({ statistic, period: Duration.minutes(1), label: statistic }),
        ),
        right: [stage.metricIntegrationLatency({ statistic: 'p99', label: 'integration p99' })],
      }),
      byFunction('Function invocations', fnMetric('Invocations', 'Sum')),
      byFunction('Function errors', fnMetric('Errors', 'Sum')),
      byFunction('Function duration p99 (ms)', fnMetric('Duration', 'p99')),
      byFunction('Function duration p50 (ms)', fnMetric('Duration', 'p50')),
      byFunction('Function throttles', fnMetric('Throttles', 'Sum')),
      byFunction('Function concurrency (max)', fnMetric('ConcurrentExecutions', 'Maximum')),
      ...[...tables].map(
        ([definition, table]) =>
          new GraphWidget({
            title: `${definition.constructId}: consumed capacity and throttles`,
            width: 8,
            left: [
              table.metricConsumedReadCapacityUnits({ ...sum, label: 'RCU' }),
              table.metricConsumedWriteCapacityUnits({ ...sum, label: 'WCU' }),
            ],
            right: [
              throttleEvents(table),
              ...definition.globalSecondaryIndexes.map(({ indexName }) =>
                throttleEvents(table, indexName),
              ),
            ],
          }),
      ),
      new GraphWidget({
        title: 'Rate limiter and authorizer',
        width: 24,
        left: [
          ...Object.values(RATE_LIMIT_METRICS).map((name) =>
            serviceMetric(name).with({ ...sum, label: name }),
          ),
          api.authorizerFailures.with({ ...sum, label: 'AuthorizerFailures' }),
        ],
      }),
    );
  }
}

/**
 * Read and write throttle events of a table, or of one of its GSIs (the metrics with the
 * `GlobalSecondaryIndexName` dimension), summed over {@link ALARM_PERIOD}.
 */
function throttleEvents(table: ITable, indexName?: string): MathExpression {
  // Expression ids must differ between the expressions of one graph.
  const suffix = indexName ? `_${indexName.replace(/[^A-Za-z0-9]/g, '_')}` : '';
  const metric = (name: string) =>
    table.metric(name, {
      statistic: 'Sum',
      ...(indexName && {
        dimensionsMap: { TableName: table.tableName, GlobalSecondaryIndexName: indexName },
      }),
    });
  return new MathExpression({
    expression: `reads${suffix} + writes${suffix}`,
    label: indexName ? `${indexName} throttle events` : 'throttle events',
    period: ALARM_PERIOD,
    usingMetrics: {
      [`reads${suffix}`]: metric('ReadThrottleEvents'),
      [`writes${suffix}`]: metric('WriteThrottleEvents'),
    },
  });
}

/** Sends every alarm's ALARM and OK to one action. */
class NotifyOnAlarm implements IAspect {
  constructor(private readonly action: SnsAction) {}

  visit(node: IConstruct): void {
    if (node instanceof Alarm) {
      node.addAlarmAction(this.action);
      node.addOkAction(this.action);
    }
  }
}
