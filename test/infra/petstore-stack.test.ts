import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, CfnElement, type Stack, Stage } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult, Handler } from 'aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import cdkJson from '../../cdk.json' with { type: 'json' };
import { ACCOUNT_STACK_NAME, createPetstoreApp, type PetstoreApp } from '../../infra/app.ts';
import { UNREACHED_CREDENTIAL_PROVIDERS } from '../../infra/constructs/service-function.ts';
import {
  GATEWAY_RESPONSES,
  gatewayResponse,
  methodNotAllowed,
  QUOTA_EXCEEDED_RETRY_AFTER_SECONDS,
  THROTTLED_RETRY_AFTER_SECONDS,
} from '../../infra/gateway-responses.ts';
import {
  createAuthorizerEvent,
  createLambdaContext,
  createProxyEvent,
} from '../../infra/local/events.ts';
import { AuthorizerResultSchema } from '../../infra/local/lambda-results.ts';
import { PetstoreStack } from '../../infra/petstore-stack.ts';
import {
  API_STAGE_NAME,
  AUTHORIZER_CACHE_TTL_SECONDS,
  BINARY_MEDIA_TYPES,
  FUNCTION_TIMEOUT_SECONDS,
  ROUTES,
  resourcePaths,
} from '../../infra/routes.ts';
import {
  contextKey,
  STACK_OUTPUTS,
  STAGE_SETTINGS,
  STAGES,
  type StageName,
  stackName,
  usagePlanOutputName,
} from '../../infra/stages.ts';
import { keyStoreFromEnv } from '../../shared/keys/store.ts';
import { CURSOR_KEY_SECRET_ARN_ENV } from '../../shared/pets/cursor.ts';
import { BACKSTOP_FACTOR, PLAN_IDS, PLANS, usagePlanSettings } from '../../shared/plans.ts';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../../shared/rate-limit/limiter.ts';
import { BAN_POLICY_ENV } from '../../shared/rate-limit/middleware.ts';
import {
  COUNTERS_TABLE,
  IDEMPOTENCY_TABLE,
  KEYS_TABLE,
  PETS_TABLE,
  TABLES,
} from '../../shared/tables.ts';

/** What each stage does with its tables when the stack goes. */
const TABLE_REMOVAL: Record<StageName, { policy: string; deletionProtection: boolean }> = {
  staging: { policy: 'Delete', deletionProtection: false },
  production: { policy: 'Retain', deletionProtection: true },
};

/** Construct ids of the operation functions, one per route. */
const OPERATION_IDS = ROUTES.map((route) => route.constructId);

/** Construct ids of the stack's functions: one per route, then the authorizer. */
const FUNCTION_IDS = [...OPERATION_IDS, 'AuthorizerFunction'];

/** The ban variables an operation function gets for `policy`. */
function banEnvironment(policy: BanPolicy): Record<string, string> {
  return {
    [BAN_POLICY_ENV.threshold]: String(policy.threshold),
    [BAN_POLICY_ENV.durationSeconds]: String(policy.durationSeconds),
  };
}

const outdir = mkdtempSync(join(tmpdir(), 'petstore-cdk-'));
let petstore: PetstoreApp;
const templates = {} as Record<StageName, Template>;

beforeAll(() => {
  // GIVEN the app with cdk.json's feature flags; building it bundles every function (seconds)
  petstore = createPetstoreApp({ context: cdkJson.context, outdir });
  // WHEN each stage is synthesized, once for the whole file
  for (const stage of STAGES) templates[stage] = Template.fromStack(petstore.stacks[stage]);
});

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/**
 * The CloudFormation logical id of the construct at `path` under the stack (e.g. `Api/Authorizer`),
 * following default children down to the CloudFormation resource.
 */
function logicalId(stack: Stack, path: string): string {
  let construct: IConstruct = stack.node.findChild(path.split('/')[0] ?? path);
  for (const id of path.split('/').slice(1)) construct = construct.node.findChild(id);
  while (!CfnElement.isCfnElement(construct)) {
    const child = construct.node.defaultChild;
    if (!child) throw new Error(`${path} has no CloudFormation resource`);
    construct = child;
  }
  return stack.getLogicalId(construct);
}

describe.each(STAGES)('the %s stage', (stage) => {
  const stack = () => petstore.stacks[stage];
  const template = () => templates[stage];
  const arnOf = (tableId: string) => ({ 'Fn::GetAtt': [logicalId(stack(), tableId), 'Arn'] });
  const apiStageRef = () => ({
    Ref: Object.keys(
      template().findResources('AWS::ApiGateway::Stage', {
        Properties: { StageName: API_STAGE_NAME },
      }),
    )[0],
  });

  it('is the stack named stackName(stage)', () => {
    expect(stack().stackName).toBe(stackName(stage));
  });

  it('keeps the logical ids of the data and of what clients hold: tables, RestApi, stage, usage plans', () => {
    // GIVEN the logical ids deployed stacks already have (a changed one replaces the resource: an
    // empty table, a new base URL, usage plans without their API keys)
    const pinned: Record<string, string> = {
      PetsTable56B0D675: 'AWS::DynamoDB::Table',
      KeysTableDD857A22: 'AWS::DynamoDB::Table',
      CountersTable23DAAD26: 'AWS::DynamoDB::Table',
      IdempotencyTable22A5A209: 'AWS::DynamoDB::Table',
      ApiF70053CD: 'AWS::ApiGateway::RestApi',
      ApiDeploymentStagev102147F91: 'AWS::ApiGateway::Stage',
      ApiUsagePlanFree256CC719: 'AWS::ApiGateway::UsagePlan',
      ApiUsagePlanPro24D338D6: 'AWS::ApiGateway::UsagePlan',
      ApiUsagePlanBusiness50B62649: 'AWS::ApiGateway::UsagePlan',
    };

    // WHEN the stage is synthesized
    const resources = template().toJSON().Resources;

    // THEN each is there under its old id, and the stack keeps its name
    for (const [id, type] of Object.entries(pinned)) expect(resources[id]?.Type).toBe(type);
    expect(stack().stackName).toBe(`petstore-${stage}`);
  });

  describe('tables', () => {
    it('creates exactly the tables of TABLES, on demand, with point-in-time recovery', () => {
      template().resourceCountIs('AWS::DynamoDB::Table', TABLES.length);
      for (const table of TABLES) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), table.constructId)];
        expect(Properties).toMatchObject({
          KeySchema: [{ AttributeName: table.partitionKey.name, KeyType: 'HASH' }],
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        });
      }
    });

    it('gives the pets table the status-index GSI: partition key status, sort key id', () => {
      template().hasResource('AWS::DynamoDB::Table', {
        Properties: Match.objectLike({
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          GlobalSecondaryIndexes: [
            {
              IndexName: 'status-index',
              KeySchema: [
                { AttributeName: 'status', KeyType: 'HASH' },
                { AttributeName: 'id', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          ],
        }),
      });
    });

    it('gives the keys table its keyId GSI and the counters table its TTL, and nothing else', () => {
      const resources = template().toJSON().Resources;
      const keys = resources[logicalId(stack(), KEYS_TABLE.constructId)].Properties;
      const counters = resources[logicalId(stack(), COUNTERS_TABLE.constructId)].Properties;
      const pets = resources[logicalId(stack(), PETS_TABLE.constructId)].Properties;

      expect(keys.GlobalSecondaryIndexes).toEqual([
        {
          IndexName: 'keyId-index',
          KeySchema: [{ AttributeName: 'keyId', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ]);
      expect(counters.TimeToLiveSpecification).toEqual({
        AttributeName: 'expiresAt',
        Enabled: true,
      });
      expect(counters.GlobalSecondaryIndexes).toBeUndefined();
      expect(pets.TimeToLiveSpecification).toBeUndefined();
      expect(keys.TimeToLiveSpecification).toBeUndefined();
    });

    it(`${stage === 'production' ? 'retains and deletion-protects' : 'deletes'} every table with the stack`, () => {
      const { policy, deletionProtection } = TABLE_REMOVAL[stage];
      for (const table of TABLES) {
        const resource = template().toJSON().Resources[logicalId(stack(), table.constructId)];
        expect(resource.DeletionPolicy).toBe(policy);
        expect(resource.UpdateReplacePolicy).toBe(policy);
        expect(resource.Properties.DeletionProtectionEnabled).toBe(deletionProtection);
      }
    });
  });

  describe('functions', () => {
    it('gives every function the timeout the local gateway emulates (10 s)', () => {
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        expect(Properties.Timeout).toBe(FUNCTION_TIMEOUT_SECONDS);
      }
      expect(FUNCTION_TIMEOUT_SECONDS).toBe(10);
    });

    it('runs one Node.js 22 arm64 ESM function per route plus the authorizer', () => {
      template().resourceCountIs('AWS::Lambda::Function', FUNCTION_IDS.length);
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        expect(Properties).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
        });
      }
    });

    it("passes every table name by its env var, the Powertools settings, the stage, the stage's source-map setting, and the operations the default ban policy", () => {
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        expect(Properties.Environment.Variables).toEqual({
          PETS_TABLE_NAME: { Ref: logicalId(stack(), PETS_TABLE.constructId) },
          KEYS_TABLE_NAME: { Ref: logicalId(stack(), KEYS_TABLE.constructId) },
          COUNTERS_TABLE_NAME: { Ref: logicalId(stack(), COUNTERS_TABLE.constructId) },
          IDEMPOTENCY_TABLE_NAME: { Ref: logicalId(stack(), IDEMPOTENCY_TABLE.constructId) },
          POWERTOOLS_SERVICE_NAME: 'petstore',
          POWERTOOLS_METRICS_NAMESPACE: 'Petstore',
          POWERTOOLS_LOG_LEVEL: 'INFO',
          PETSTORE_STAGE: stage,
          ...(STAGE_SETTINGS[stage].sourceMaps && { NODE_OPTIONS: '--enable-source-maps' }),
          ...(OPERATION_IDS.includes(id) ? banEnvironment(DEFAULT_BAN_POLICY) : {}),
          ...(id === 'ListPetsFunction'
            ? { [CURSOR_KEY_SECRET_ARN_ENV]: { Ref: logicalId(stack(), 'CursorKeySecret') } }
            : {}),
        });
      }
    });

    it(`generates the cursor key in Secrets Manager, ${stage === 'production' ? 'retained' : 'deleted'} with the stack`, () => {
      const secrets = template().findResources('AWS::SecretsManager::Secret');

      expect(Object.keys(secrets)).toEqual([logicalId(stack(), 'CursorKeySecret')]);
      const [secret] = Object.values(secrets);
      expect(secret?.Properties.GenerateSecretString).toEqual({
        PasswordLength: 64,
        ExcludePunctuation: true,
      });
      expect(secret?.Properties.SecretString).toBeUndefined();
      expect(secret?.DeletionPolicy).toBe(TABLE_REMOVAL[stage].policy);
    });

    it('logs each function to its own log group with a retention', () => {
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        const logGroup = template().toJSON().Resources[logicalId(stack(), `${id}/Logs`)];
        expect(Properties.LoggingConfig).toEqual({
          LogGroup: { Ref: logicalId(stack(), `${id}/Logs`) },
        });
        expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
      }
    });

    it('grants each function exactly the DynamoDB actions its store and rate limiter call, log writes, trace writes, and listPets the read of its cursor key', () => {
      const pets = arnOf(PETS_TABLE.constructId);
      const counters = {
        Action: 'dynamodb:UpdateItem',
        Effect: 'Allow',
        Resource: arnOf(COUNTERS_TABLE.constructId),
      };
      const expected: Record<string, unknown[]> = {
        ListPetsFunction: [
          {
            Action: 'dynamodb:Query',
            Effect: 'Allow',
            Resource: [pets, { 'Fn::Join': ['', [pets, '/index/status-index']] }],
          },
          counters,
        ],
        CreatePetFunction: [
          {
            Action: ['dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem'],
            Effect: 'Allow',
            Resource: [pets, { 'Fn::Join': ['', [pets, '/index/status-index']] }],
          },
          {
            Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
            Effect: 'Allow',
            Resource: arnOf(COUNTERS_TABLE.constructId),
          },
          {
            Action: ['dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
            Effect: 'Allow',
            Resource: arnOf(IDEMPOTENCY_TABLE.constructId),
          },
        ],
        GetPetFunction: [{ Action: 'dynamodb:GetItem', Effect: 'Allow', Resource: pets }, counters],
        AuthorizerFunction: [
          { Action: 'dynamodb:GetItem', Effect: 'Allow', Resource: arnOf(KEYS_TABLE.constructId) },
        ],
      };
      const policies = Object.values(template().findResources('AWS::IAM::Policy'));

      expect(policies).toHaveLength(FUNCTION_IDS.length);
      for (const id of FUNCTION_IDS) {
        const role = { Ref: logicalId(stack(), `${id}/Role`) };
        const policy = policies.find(
          (p) => JSON.stringify(p.Properties.Roles) === JSON.stringify([role]),
        );
        expect(policy?.Properties.PolicyDocument.Statement).toEqual([
          {
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Effect: 'Allow',
            Resource: arnOf(`${id}/Logs`),
          },
          ...(expected[id] ?? []),
          {
            Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
            Effect: 'Allow',
            Resource: '*',
          },
          // Granted after the function exists, so its statement comes last.
          ...(id === 'ListPetsFunction'
            ? [
                {
                  Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
                  Effect: 'Allow',
                  Resource: { Ref: logicalId(stack(), 'CursorKeySecret') },
                },
              ]
            : []),
        ]);
      }
    });

    it("attaches no managed policy to any role but CodeDeploy's, which gets AWS's limited Lambda policy", () => {
      const deploymentRoles = OPERATION_IDS.map((id) =>
        logicalId(stack(), `${id}/Deployment/ServiceRole`),
      );
      for (const [id, role] of Object.entries(template().findResources('AWS::IAM::Role'))) {
        if (deploymentRoles.includes(id)) {
          expect(JSON.stringify(role.Properties.ManagedPolicyArns)).toContain(
            ':iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited',
          );
        } else {
          expect(role.Properties.ManagedPolicyArns).toBeUndefined();
        }
      }
    });

    it('runs every function with X-Ray active tracing', () => {
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        expect(Properties.TracingConfig).toEqual({ Mode: 'Active' });
      }
    });
  });

  describe('RestApi', () => {
    const authorizerRef = () => ({ Ref: logicalId(stack(), 'Api/Authorizer') });

    it('deploys to the stage v1 with the API key taken from the authorizer', () => {
      template().hasResourceProperties('AWS::ApiGateway::Stage', { StageName: API_STAGE_NAME });
      template().hasResourceProperties('AWS::ApiGateway::RestApi', {
        ApiKeySourceType: 'AUTHORIZER',
      });
      expect(API_STAGE_NAME).toBe('v1');
    });

    it('passes every request body to the functions as bytes (binary media type */*)', () => {
      template().hasResourceProperties('AWS::ApiGateway::RestApi', {
        BinaryMediaTypes: ['*/*'],
      });
      expect(BINARY_MEDIA_TYPES).toEqual(['*/*']);
    });

    it('writes JSON access logs to a log group of the stack', () => {
      template().hasResourceProperties('AWS::ApiGateway::Stage', {
        AccessLogSetting: {
          DestinationArn: Match.anyValue(),
          Format: Match.stringLikeRegexp('"keyId":"\\$context\\.authorizer\\.keyId"'),
        },
      });
    });

    it('has a REQUEST authorizer on the Authorization header, its result cached', () => {
      template().resourceCountIs('AWS::ApiGateway::Authorizer', 1);
      template().hasResourceProperties('AWS::ApiGateway::Authorizer', {
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.Authorization',
        AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
      });
    });

    it("puts every operation behind the authorizer and a required key, proxied to its function's live alias", () => {
      const methods = template().findResources('AWS::ApiGateway::Method', {
        Properties: { HttpMethod: Match.not('ANY') },
      });
      expect(Object.keys(methods)).toHaveLength(ROUTES.length);
      for (const route of ROUTES) {
        template().hasResourceProperties('AWS::ApiGateway::Method', {
          HttpMethod: route.method,
          OperationName: route.operationId,
          AuthorizationType: 'CUSTOM',
          AuthorizerId: authorizerRef(),
          ApiKeyRequired: true,
          Integration: {
            Type: 'AWS_PROXY',
            Uri: {
              'Fn::Join': [
                '',
                Match.arrayWith([{ Ref: logicalId(stack(), `${route.constructId}/Live`) }]),
              ],
            },
          },
        });
      }
    });

    it('answers 405 with Allow from an ANY mock on every resource path', () => {
      const expectedAllow: Record<string, string> = {
        '/pets': 'GET, POST',
        '/pets/{petId}': 'GET',
      };
      template().resourceCountIs('AWS::ApiGateway::Method', ROUTES.length + resourcePaths().size);
      for (const path of resourcePaths().keys()) {
        const { body } = methodNotAllowed(path);
        template().hasResourceProperties('AWS::ApiGateway::Method', {
          HttpMethod: 'ANY',
          AuthorizationType: 'NONE',
          Integration: {
            Type: 'MOCK',
            ContentHandling: 'CONVERT_TO_TEXT',
            IntegrationResponses: [
              {
                StatusCode: '405',
                ResponseTemplates: { 'application/json': JSON.stringify(body) },
                ResponseParameters: {
                  'method.response.header.Allow': `'${expectedAllow[path]}'`,
                  'method.response.header.Content-Type': "'application/json'",
                },
              },
            ],
          },
          MethodResponses: [Match.objectLike({ StatusCode: '405' })],
        });
      }
    });

    it('has one gateway response per GATEWAY_RESPONSES row, its status and body as in the table', () => {
      const responses = Object.values(template().findResources('AWS::ApiGateway::GatewayResponse'));
      expect(responses).toHaveLength(GATEWAY_RESPONSES.length);
      for (const row of GATEWAY_RESPONSES) {
        const response = responses.find((r) => r.Properties.ResponseType === row.type);
        const properties = response?.Properties;
        expect(properties?.StatusCode).toBe(String(row.body.status));
        expect(JSON.parse(properties?.ResponseTemplates['application/json'])).toEqual(row.body);
        expect(properties?.ResponseParameters).toEqual({
          ...Object.fromEntries(
            Object.entries(row.headers).map(([name, value]) => [
              `gatewayresponse.header.${name}`,
              `'${value}'`,
            ]),
          ),
          'gatewayresponse.header.Content-Type': "'application/json'",
        });
      }
    });

    it.each([
      ['THROTTLED', 'rate_limited', THROTTLED_RETRY_AFTER_SECONDS],
      ['QUOTA_EXCEEDED', 'quota_exceeded', QUOTA_EXCEEDED_RETRY_AFTER_SECONDS],
    ] as const)(
      'answers %s with 429 %s, a static Retry-After of %i s and X-RateLimit-Remaining 0',
      (type, code, retryAfter) => {
        template().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
          ResponseType: type,
          StatusCode: '429',
          ResponseTemplates: {
            'application/json': JSON.stringify(gatewayResponse(type).body),
          },
          ResponseParameters: {
            'gatewayresponse.header.Retry-After': `'${retryAfter}'`,
            'gatewayresponse.header.X-RateLimit-Remaining': "'0'",
            'gatewayresponse.header.Content-Type': "'application/json'",
          },
        });
        expect(gatewayResponse(type).body.code).toBe(code);
      },
    );

    it('answers an unauthorized call with 401 and WWW-Authenticate: Bearer', () => {
      template().hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: 'UNAUTHORIZED',
        StatusCode: '401',
        ResponseParameters: Match.objectLike({
          'gatewayresponse.header.WWW-Authenticate': "'Bearer'",
        }),
      });
    });

    it('never creates the account-wide AWS::ApiGateway::Account', () => {
      template().resourceCountIs('AWS::ApiGateway::Account', 0);
    });
  });

  describe('usage plans', () => {
    it('has one usage plan per plan, the backstop of usagePlanSettings(PLANS[id]), bound to the v1 stage', () => {
      template().resourceCountIs('AWS::ApiGateway::UsagePlan', PLAN_IDS.length);
      for (const planId of PLAN_IDS) {
        const plan = PLANS[planId];
        const settings = usagePlanSettings(plan);
        template().hasResourceProperties('AWS::ApiGateway::UsagePlan', {
          UsagePlanName: `${stackName(stage)}-${plan.name}`,
          Throttle: { RateLimit: settings.rateLimit, BurstLimit: settings.burstLimit },
          Quota: { Limit: settings.quotaPerDay, Period: 'DAY' },
          ApiStages: [
            Match.objectLike({
              ApiId: { Ref: logicalId(stack(), 'Api') },
              Stage: apiStageRef(),
            }),
          ],
        });
      }
    });

    it("describes each usage plan with the plan's numbers and the backstop's", () => {
      for (const planId of PLAN_IDS) {
        const plan = PLANS[planId];
        const { burstLimit, quotaPerDay } = usagePlanSettings(plan);
        const [usagePlan] = Object.values(
          template().findResources('AWS::ApiGateway::UsagePlan', {
            Properties: { UsagePlanName: `${stackName(stage)}-${plan.name}` },
          }),
        );
        const description: string = usagePlan?.Properties.Description;
        for (const part of [
          `${plan.name} plan: ${plan.perMinute} requests per minute and ${plan.perDay} per day`,
          `backstop at ${BACKSTOP_FACTOR}x`,
          `burst ${burstLimit}, ${quotaPerDay} requests per day`,
        ]) {
          expect(description).toContain(part);
        }
      }
    });
  });

  describe('outputs', () => {
    it('outputs the base URL, the RestApi id, the keys and counters tables and each usage plan id', () => {
      const outputs = template().findOutputs('*');
      expect(Object.keys(outputs).sort()).toEqual(
        [
          STACK_OUTPUTS.apiBaseUrl,
          STACK_OUTPUTS.restApiId,
          STACK_OUTPUTS.keysTableName,
          STACK_OUTPUTS.countersTableName,
          STACK_OUTPUTS.dashboardUrl,
          STACK_OUTPUTS.alarmTopicArn,
          ...PLAN_IDS.map(usagePlanOutputName),
        ].sort(),
      );
      expect(outputs[STACK_OUTPUTS.restApiId]?.Value).toEqual({ Ref: logicalId(stack(), 'Api') });
      expect(outputs[STACK_OUTPUTS.keysTableName]?.Value).toEqual({
        Ref: logicalId(stack(), KEYS_TABLE.constructId),
      });
      expect(outputs[STACK_OUTPUTS.countersTableName]?.Value).toEqual({
        Ref: logicalId(stack(), COUNTERS_TABLE.constructId),
      });
      expect(outputs[STACK_OUTPUTS.apiBaseUrl]?.Value).toEqual({
        'Fn::Join': [
          '',
          [
            'https://',
            { Ref: logicalId(stack(), 'Api') },
            '.execute-api.',
            { Ref: 'AWS::Region' },
            '.',
            { Ref: 'AWS::URLSuffix' },
            '/',
            apiStageRef(),
            '/',
          ],
        ],
      });
    });
  });

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

  describe('canary deployments', () => {
    it(`publishes each operation as a version behind the alias live, shifted ${STAGE_SETTINGS[stage].deployment}`, () => {
      const config = {
        canary: 'CodeDeployDefault.LambdaCanary10Percent5Minutes',
        'all-at-once': 'CodeDeployDefault.LambdaAllAtOnce',
      }[STAGE_SETTINGS[stage].deployment];
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
              { Name: { Ref: logicalId(stack(), `${id}/ErrorsAlarm`) } },
              { Name: { Ref: logicalId(stack(), 'Api/ServerErrorsAlarm') } },
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

    it('lets API Gateway invoke only the alias of each operation, not its bare function', () => {
      const permissions = Object.values(template().findResources('AWS::Lambda::Permission'));
      for (const id of OPERATION_IDS) {
        const onAlias = permissions.filter(
          (p) =>
            JSON.stringify(p.Properties.FunctionName) ===
            JSON.stringify({ Ref: logicalId(stack(), `${id}/Live`) }),
        );
        expect(onAlias.length).toBeGreaterThan(0);
        for (const permission of onAlias) {
          expect(permission.Properties.Principal).toBe('apigateway.amazonaws.com');
        }
        expect(
          permissions.filter((p) =>
            JSON.stringify(p.Properties.FunctionName).includes(`"${logicalId(stack(), id)}"`),
          ),
        ).toEqual([]);
      }
    });
  });

  describe('edge', () => {
    it('has a REGIONAL endpoint and X-Ray tracing on the v1 stage', () => {
      template().hasResourceProperties('AWS::ApiGateway::RestApi', {
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
      template().hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: API_STAGE_NAME,
        TracingEnabled: true,
      });
    });

    it(`${STAGE_SETTINGS[stage].webAcl ? 'puts' : 'puts no'} web ACL in front of the stage`, () => {
      const count = STAGE_SETTINGS[stage].webAcl ? 1 : 0;
      template().resourceCountIs('AWS::WAFv2::WebACL', count);
      template().resourceCountIs('AWS::WAFv2::WebACLAssociation', count);
    });

    it('logs each request as one JSON line, numbers as numbers, with the integration, path, user agent and trace id', () => {
      const [apiStage] = Object.values(
        template().findResources('AWS::ApiGateway::Stage', {
          Properties: { StageName: API_STAGE_NAME },
        }),
      );
      const format: string = apiStage?.Properties.AccessLogSetting.Format;
      // As API Gateway fills it in for a refused key: no integration ran.
      const line = format
        .replace(/\$context\.(status|responseLength|responseLatency)\b/g, '401')
        .replace(/\$context\.[A-Za-z.]+/g, '-');

      expect(JSON.parse(line)).toMatchObject({
        status: 401,
        responseLength: 401,
        responseLatency: 401,
        integrationLatency: '-',
        integrationStatus: '-',
        path: '-',
        userAgent: '-',
        xrayTraceId: '-',
      });
      for (const field of [
        '$context.integrationLatency',
        '$context.integrationStatus',
        '$context.path',
        '$context.identity.userAgent',
        '$context.xrayTraceId',
      ]) {
        expect(format).toContain(field);
      }
    });
  });

  it('has no error annotation', () => {
    expect(Annotations.fromStack(stack()).findError('*', Match.anyValue())).toEqual([]);
  });
});

describe('the account stack', () => {
  it('holds the one AWS::ApiGateway::Account with a CloudWatch role API Gateway assumes', () => {
    const template = Template.fromStack(petstore.accountStack);

    expect(petstore.accountStack.stackName).toBe(ACCOUNT_STACK_NAME);
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
      },
    });
  });
});

describe('cdk-nag', () => {
  it('reports no unacknowledged AWS Solutions finding anywhere in the app', () => {
    const report = new AwsSolutionsChecks().validateScope(petstore.app);

    expect(report.violations).toEqual([]);
  });
});

describe('PetstoreStack props', () => {
  it('refuses a stage outside STAGES and says which are allowed', () => {
    const scope = new Stage(new App({ outdir }), 'dev');

    expect(() => new PetstoreStack(scope, 'Petstore', { stage: 'dev' as StageName })).toThrow(
      "stage must be one of staging, production; got 'dev'",
    );
  });

  it('passes a custom banPolicy to every operation function and none to the authorizer', () => {
    // GIVEN a stack with its own ban policy, in an app of its own
    const banPolicy = { threshold: 5, durationSeconds: 60 };
    const appOutdir = mkdtempSync(join(tmpdir(), 'petstore-cdk-ban-'));
    try {
      const app = new App({ context: cdkJson.context, outdir: appOutdir });
      const stack = new PetstoreStack(app, 'Petstore', { stage: 'staging', banPolicy });

      // WHEN it is synthesized
      const { Resources } = Template.fromStack(stack).toJSON();

      // THEN each operation function gets the policy's variables, and the authorizer none
      const variablesOf = (id: string): Record<string, unknown> =>
        Resources[logicalId(stack, id)].Properties.Environment.Variables;
      for (const id of OPERATION_IDS) {
        expect(variablesOf(id)).toMatchObject(banEnvironment(banPolicy));
      }
      for (const name of Object.values(BAN_POLICY_ENV)) {
        expect(variablesOf('AuthorizerFunction')).not.toHaveProperty(name);
      }
    } finally {
      rmSync(appOutdir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      { threshold: 0, durationSeconds: 900 },
      'banPolicy.threshold must be a whole number >= 1; got 0',
    ],
    [
      { threshold: 2.5, durationSeconds: 900 },
      'banPolicy.threshold must be a whole number >= 1; got 2.5',
    ],
    [
      { threshold: 100, durationSeconds: -1 },
      'banPolicy.durationSeconds must be a whole number >= 1; got -1',
    ],
    [
      { threshold: 100, durationSeconds: Number.NaN },
      'banPolicy.durationSeconds must be a whole number >= 1; got NaN',
    ],
  ])('refuses the banPolicy %o and says what is allowed', (banPolicy, message) => {
    const scope = new Stage(new App({ outdir }), 'bad-ban');

    expect(() => new PetstoreStack(scope, 'Petstore', { stage: 'staging', banPolicy })).toThrow(
      message,
    );
  });
});

describe('the bundles', () => {
  /** Path of the bundled `index.mjs` of a function of the staging stack (both stages share it). */
  function bundlePath(id: string): string {
    const stack = petstore.stacks.staging;
    const { Properties } = templates.staging.toJSON().Resources[logicalId(stack, id)];
    const assetHash = String(Properties.Code.S3Key).replace(/\.zip$/, '');
    return join(outdir, `asset.${assetHash}`, 'index.mjs');
  }

  /** Imports a function's bundle as Lambda loads it, and returns its handler. */
  async function bundledHandler<Event, Result>(id: string): Promise<Handler<Event, Result>> {
    const module = (await import(bundlePath(id))) as { handler: Handler<Event, Result> };
    return module.handler;
  }

  it('are ESM with the createRequire banner and a source map, and carry the AWS SDK', () => {
    for (const id of FUNCTION_IDS) {
      const code = readFileSync(bundlePath(id), 'utf8');

      expect(code.startsWith("import { createRequire } from 'node:module';")).toBe(true);
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//);
      expect(code).toContain('DynamoDBClient');
      expect(existsSync(`${bundlePath(id)}.map`)).toBe(true);
    }
  });

  it('leave out only the credential providers Lambda never reaches, each loaded by a dynamic import', () => {
    for (const id of FUNCTION_IDS) {
      const code = readFileSync(bundlePath(id), 'utf8');
      const dynamic = [
        ...code.matchAll(/import\(\s*["']((?:@aws-sdk|@smithy)\/[^"']+)["']\s*\)/g),
      ].map((match) => match[1]);

      expect(new Set(dynamic)).toEqual(new Set(UNREACHED_CREDENTIAL_PROVIDERS));
      expect(code).not.toMatch(/from\s*["']@smithy\//);
      expect(code).toContain('credential-provider-env');
    }
  });

  it('run: the bundled authorizer admits a key and the bundled createPet and getPet serve with its context', async () => {
    const { token, record } = await keyStoreFromEnv().createKey({ plan: 'free' });
    const authorizer = await bundledHandler<unknown, APIGatewayAuthorizerResult>(
      'AuthorizerFunction',
    );
    const createPet = await bundledHandler<unknown, APIGatewayProxyResult>('CreatePetFunction');
    const getPet = await bundledHandler<unknown, APIGatewayProxyResult>('GetPetFunction');
    const context = createLambdaContext('bundle-test');
    const noCallback = () => {};

    const allowed = await authorizer(
      createAuthorizerEvent({
        method: 'POST',
        resource: '/pets',
        path: '/pets',
        headers: { Authorization: `Bearer ${token}` },
      }),
      context,
      noCallback,
    );
    // API Gateway passes the authorizer's context on to the functions, whose rate limiter reads it.
    const { principalId, context: authorizerContext } = v.parse(AuthorizerResultSchema, allowed);
    const authorizerOutput = { ...authorizerContext, principalId };
    const created = await createPet(
      createProxyEvent({
        method: 'POST',
        resource: '/pets',
        path: '/pets',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Bundled', categoryId: 1 }),
        authorizer: authorizerOutput,
      }),
      context,
      noCallback,
    );
    const pet = JSON.parse(created?.body ?? '{}');
    const fetched = await getPet(
      createProxyEvent({
        method: 'GET',
        resource: '/pets/{petId}',
        path: `/pets/${pet.id}`,
        pathParameters: { petId: String(pet.id) },
        authorizer: authorizerOutput,
      }),
      context,
      noCallback,
    );

    expect(principalId).toBe(record.keyId);
    expect(created?.statusCode).toBe(201);
    expect(fetched?.statusCode).toBe(200);
    expect(JSON.parse(fetched?.body ?? '{}')).toEqual(pet);
  });
});

describe('the web ACL of production', () => {
  it('runs the common and known-bad-inputs rule sets, the body size rule counted, and blocks an IP over 20,000 requests in 5 minutes', () => {
    const template = templates.production;
    const stack = petstore.stacks.production;
    const webAcl = logicalId(stack, 'Api/WebAcl');

    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({
          Name: 'RateLimitPerIp',
          Action: { Block: {} },
          Statement: {
            RateBasedStatement: { AggregateKeyType: 'IP', Limit: 20_000, EvaluationWindowSec: 300 },
          },
        }),
        Match.objectLike({
          Name: 'AWSManagedRulesCommonRuleSet',
          OverrideAction: { None: {} },
          Statement: {
            ManagedRuleGroupStatement: {
              VendorName: 'AWS',
              Name: 'AWSManagedRulesCommonRuleSet',
              RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }],
            },
          },
        }),
        Match.objectLike({
          Name: 'AWSManagedRulesKnownBadInputsRuleSet',
          Statement: {
            ManagedRuleGroupStatement: {
              VendorName: 'AWS',
              Name: 'AWSManagedRulesKnownBadInputsRuleSet',
            },
          },
        }),
      ],
    });
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
      WebACLArn: { 'Fn::GetAtt': [webAcl, 'Arn'] },
      ResourceArn: {
        'Fn::Join': [
          '',
          Match.arrayWith([{ Ref: logicalId(stack, 'Api/Default/DeploymentStage.v1') }]),
        ],
      },
    });
  });
});

describe('stage options', () => {
  /** Synthesizes an app whose CDK context holds `context` besides cdk.json's flags. */
  function synthesize(context: Record<string, string>) {
    const appOutdir = mkdtempSync(join(tmpdir(), 'petstore-cdk-options-'));
    try {
      const app = createPetstoreApp({
        context: { ...cdkJson.context, ...context },
        outdir: appOutdir,
      });
      return Object.fromEntries(
        STAGES.map((stage) => [stage, Template.fromStack(app.stacks[stage])]),
      ) as Record<StageName, Template>;
    } finally {
      rmSync(appOutdir, { recursive: true, force: true });
    }
  }

  it("subscribes the context's alarm e-mail to that stage's topic, turns its web ACL over and sets the IP limit", () => {
    // GIVEN production's alarm e-mail and staging's web ACL with its own IP limit, in the context
    const context = {
      [contextKey('production', 'alarmEmail')]: 'ops@example.com',
      [contextKey('staging', 'webAcl')]: 'true',
      [contextKey('staging', 'ipRateLimit')]: '500',
      [contextKey('production', 'webAcl')]: 'false',
    };

    // WHEN the app is synthesized
    const stages = synthesize(context);

    // THEN each stage has what its options say, and only that
    stages.production.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    stages.staging.resourceCountIs('AWS::SNS::Subscription', 0);
    stages.staging.hasResourceProperties('AWS::WAFv2::WebACL', {
      Rules: Match.arrayWith([
        Match.objectLike({ Statement: { RateBasedStatement: Match.objectLike({ Limit: 500 }) } }),
      ]),
    });
    stages.production.resourceCountIs('AWS::WAFv2::WebACL', 0);
  });

  it.each([
    [
      { [contextKey('staging', 'webAcl')]: 'yes' },
      "petstore:staging:webAcl must be true or false; got 'yes'",
    ],
    [
      { [contextKey('staging', 'ipRateLimit')]: '5' },
      'ipRateLimit must be a whole number from 10 to 2000000000 (requests per IP per 5 minutes); got 5',
    ],
    [
      { [contextKey('staging', 'ipRateLimit')]: 'many' },
      "petstore:staging:ipRateLimit must be a number; got 'many'",
    ],
    [
      { [contextKey('production', 'alarmEmail')]: 'ops' },
      "alarmEmail must be an e-mail address such as ops@example.com; got 'ops'",
    ],
  ])('refuses the context %o and says what is allowed', (context, message) => {
    expect(() =>
      synthesize({
        ...context,
        [contextKey('staging', 'webAcl')]: context[contextKey('staging', 'webAcl')] ?? 'true',
      }),
    ).toThrow(message);
  });
});
