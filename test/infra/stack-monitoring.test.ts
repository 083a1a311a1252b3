/**
 * The monitoring of both stages' stacks, synthesized with cdk.json's flags: the alarms (5XX,
 * function errors and throttles, the rate limiter failing open, authorizer failures, table
 * throttling, p99 latency), the encrypted alarm topic they notify, and the dashboard. The canary
 * deployments: stack-deployments.test.ts.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../infra/routes.ts';
import { STACK_OUTPUTS, STAGES, stackName } from '../../infra/stages.ts';
import {
  AUDIT_DAY_INDEX,
  KEY_HISTORY_INDEX,
  OWNER_KEYS_INDEX,
  TABLES,
} from '../../shared/dynamodb/tables.ts';
import { FUNCTION_IDS, logicalId, stageOf, synthesizeStages } from '../support/petstore-app.ts';
import { policyAllows, resolve, SAMPLE_ENVIRONMENT } from '../support/resource-policy.ts';

synthesizeStages();

describe.each(STAGES)('the %s stage', (stage) => {
  const { stack, template } = stageOf(stage);

  describe('alarms', () => {
    it('alarms on API 5XX, on each operation function error and on every function throttle', () => {
      template().hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Statistic: 'Sum',
        Threshold: 1,
      });
      for (const route of ROUTES) {
        template().hasResourceProperties('AWS::CloudWatch::Alarm', {
          MetricName: 'Errors',
          Dimensions: [
            { Name: 'FunctionName', Value: { Ref: logicalId(stack(), route.constructId) } },
          ],
        });
      }
      for (const id of FUNCTION_IDS) {
        template().hasResourceProperties('AWS::CloudWatch::Alarm', {
          MetricName: 'Throttles',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: logicalId(stack(), id) } }],
        });
      }
    });

    it("alarms on the first request the stage's own rate limiter admits uncounted (fail open)", () => {
      template().hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'Petstore',
        MetricName: 'RateLimiterUnavailable',
        Dimensions: [
          { Name: 'service', Value: 'petstore' },
          { Name: 'stage', Value: stage },
        ],
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });
  });

  describe('alarm topic', () => {
    const topicRef = () => ({ Ref: logicalId(stack(), 'Monitoring/AlarmTopic') });

    it('is one SNS topic encrypted with a rotated customer managed key that CloudWatch may use', () => {
      template().resourceCountIs('AWS::SNS::Topic', 1);
      template().hasResourceProperties('AWS::SNS::Topic', {
        KmsMasterKeyId: { 'Fn::GetAtt': [logicalId(stack(), 'Monitoring/AlarmTopicKey'), 'Arn'] },
      });
      template().hasResourceProperties('AWS::KMS::Key', {
        EnableKeyRotation: true,
        KeyPolicy: {
          Statement: Match.arrayWith([
            {
              Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
              Effect: 'Allow',
              Principal: { Service: 'cloudwatch.amazonaws.com' },
              Resource: '*',
            },
          ]),
        },
      });
    });

    it('refuses publishing without TLS', () => {
      template().hasResourceProperties('AWS::SNS::TopicPolicy', {
        Topics: [topicRef()],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('receives ALARM and OK from every alarm of the stack', () => {
      const alarms = Object.values(template().findResources('AWS::CloudWatch::Alarm'));

      expect(alarms.length).toBeGreaterThanOrEqual(14);
      for (const alarm of alarms) {
        expect(alarm.Properties.AlarmActions).toEqual([topicRef()]);
        expect(alarm.Properties.OKActions).toEqual([topicRef()]);
      }
    });

    it("lets CloudWatch publish every alarm's ALARM and OK: topic policy and key policy allow it", () => {
      // GIVEN every alarm action's topic, the policies on that topic and its KMS key
      const resources = template().toJSON().Resources;
      const topicPolicies = Object.values(template().findResources('AWS::SNS::TopicPolicy'));
      const alarms = Object.entries(template().findResources('AWS::CloudWatch::Alarm'));
      const account = SAMPLE_ENVIRONMENT['AWS::AccountId'] ?? '';
      const checked = new Set<string>();
      for (const [alarmId, alarm] of alarms) {
        for (const action of [...alarm.Properties.AlarmActions, ...alarm.Properties.OKActions]) {
          const topic = resources[action.Ref];
          expect(topic?.Type).toBe('AWS::SNS::Topic');
          const topicStatements = topicPolicies
            .filter((policy) => JSON.stringify(policy.Properties.Topics).includes(action.Ref))
            .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
          const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
          const keyStatements = resources[keyId].Properties.KeyPolicy.Statement;
          // WHEN CloudWatch publishes for the alarm (its name as CloudFormation generates it)
          const publish = (sourceAccount: string, secure = 'true') => {
            const context = {
              'aws:SourceAccount': sourceAccount,
              'aws:SourceArn': `arn:aws:cloudwatch:us-east-1:${sourceAccount}:alarm:${stackName(stage)}-${alarmId}-1AB2C3D4E5F6`,
              'aws:SecureTransport': secure,
            };
            const request = { service: 'cloudwatch.amazonaws.com', context };
            return (
              policyAllows(topicStatements, {
                ...request,
                action: 'sns:Publish',
                resource: resolve(action),
              }) &&
              ['kms:GenerateDataKey', 'kms:Decrypt'].every((kmsAction) =>
                policyAllows(keyStatements, {
                  ...request,
                  action: kmsAction,
                  resource: resolve(topic.Properties.KmsMasterKeyId),
                }),
              )
            );
          };
          // THEN the stage's own alarms get through; another account's, or one without TLS, not
          expect(publish(account), alarmId).toBe(true);
          expect(publish('222222222222')).toBe(false);
          expect(publish(account, 'false')).toBe(false);
          checked.add(alarmId);
        }
      }
      expect(checked.size).toBe(alarms.length);
    });

    it('has no subscription unless an alarm e-mail is set', () => {
      template().resourceCountIs('AWS::SNS::Subscription', 0);
    });
  });

  describe('alarms beyond errors and throttles', () => {
    it("alarms on authorizer failures, counted per RestApi from the access log's error type", () => {
      template().hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: { Ref: logicalId(stack(), 'Api/AccessLogs') },
        FilterPattern:
          '{ ($.errorType = "AUTHORIZER_FAILURE") || ($.errorType = "AUTHORIZER_CONFIGURATION_ERROR") }',
        MetricTransformations: [
          {
            MetricNamespace: 'Petstore',
            MetricName: 'AuthorizerFailures',
            MetricValue: '1',
            Dimensions: [{ Key: 'ApiId', Value: '$.apiId' }],
          },
        ],
      });
      template().hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'Petstore',
        MetricName: 'AuthorizerFailures',
        Dimensions: [{ Name: 'ApiId', Value: { Ref: logicalId(stack(), 'Api') } }],
        Statistic: 'Sum',
        Threshold: 1,
      });
    });

    it('alarms on read or write throttling of every table', () => {
      for (const table of TABLES) {
        const tableRef = { Ref: logicalId(stack(), table.constructId) };
        template().hasResourceProperties('AWS::CloudWatch::Alarm', {
          Threshold: 1,
          Metrics: Match.arrayWith([
            Match.objectLike({ Expression: 'reads + writes' }),
            Match.objectLike({
              MetricStat: Match.objectLike({
                Metric: {
                  Namespace: 'AWS/DynamoDB',
                  MetricName: 'WriteThrottleEvents',
                  Dimensions: [{ Name: 'TableName', Value: tableRef }],
                },
              }),
            }),
          ]),
        });
      }
    });

    it("alarms on read or write throttling of every GSI, from the index's own metrics", () => {
      const indexes = TABLES.flatMap((table) =>
        table.globalSecondaryIndexes.map(({ indexName }) => ({ table, indexName })),
      );
      expect(indexes.map(({ indexName }) => indexName)).toEqual([
        'status-index',
        OWNER_KEYS_INDEX,
        KEY_HISTORY_INDEX,
        AUDIT_DAY_INDEX,
      ]);
      for (const { table, indexName } of indexes) {
        const alarm =
          template().toJSON().Resources[
            logicalId(stack(), `Monitoring/${table.constructId}-${indexName}ThrottlesAlarm`)
          ];
        const metrics = alarm.Properties.Metrics.flatMap(
          (query: { MetricStat?: { Metric: unknown } }) => query.MetricStat?.Metric ?? [],
        );
        expect(alarm.Properties.Threshold).toBe(1);
        expect(metrics).toEqual(
          ['ReadThrottleEvents', 'WriteThrottleEvents'].map((MetricName) => ({
            Namespace: 'AWS/DynamoDB',
            MetricName,
            Dimensions: [
              { Name: 'GlobalSecondaryIndexName', Value: indexName },
              { Name: 'TableName', Value: { Ref: logicalId(stack(), table.constructId) } },
            ],
          })),
        );
      }
    });

    it("alarms when the stage's p99 latency stays at or above 1 s for 15 minutes", () => {
      template().hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        ExtendedStatistic: 'p99',
        Period: 300,
        EvaluationPeriods: 3,
        Threshold: 1000,
        Dimensions: Match.arrayWith([{ Name: 'ApiName', Value: stackName(stage) }]),
      });
    });
  });

  describe('dashboard', () => {
    it('is named after the stack and charts the API, every function, every table, the limiter and the authorizer', () => {
      const [dashboard] = Object.values(template().findResources('AWS::CloudWatch::Dashboard'));
      const body = JSON.stringify(dashboard?.Properties.DashboardBody);

      expect(dashboard?.Properties.DashboardName).toBe(stackName(stage));
      for (const metric of [
        'Count',
        '4XXError',
        '5XXError',
        'Latency',
        'Invocations',
        'Errors',
        'Duration',
        'Throttles',
        'ConcurrentExecutions',
        'ConsumedReadCapacityUnits',
        'ConsumedWriteCapacityUnits',
        'ReadThrottleEvents',
        'WriteThrottleEvents',
        'GlobalSecondaryIndexName',
        'status-index',
        'RateLimitRefused',
        'RateLimitBanned',
        'RateLimiterUnavailable',
        'AuthorizerFailures',
      ]) {
        expect(body).toContain(`\\"${metric}\\"`);
      }
      for (const id of [...FUNCTION_IDS, ...TABLES.map((table) => table.constructId)]) {
        expect(body).toContain(logicalId(stack(), id));
      }
      expect(body).toContain(`\\"stage\\",\\"${stage}\\"`);
    });

    it('outputs its console URL', () => {
      const url = JSON.stringify(template().findOutputs(STACK_OUTPUTS.dashboardUrl));
      expect(url).toContain(
        `"#dashboards:name=",{"Ref":"${logicalId(stack(), 'Monitoring/Dashboard')}"}`,
      );
    });
  });
});
