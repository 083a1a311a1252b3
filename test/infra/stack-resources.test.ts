/**
 * The stacks of both stages (infra/petstore-stack.ts), synthesized with cdk.json's flags: the stack's
 * name and the logical ids deployed stacks keep, the tables (keys, GSIs, TTL, removal), the
 * functions (runtime, timeout, environment, logs, tracing) with their roles and the secrets their
 * rows name; the whole app: no error annotation, the account stack. A cdk-nag finding left
 * unanswered fails the synthesis that every file shares (test/support/synthesized-app.ts).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it, vi } from 'vitest';
import { createLambdaContext } from '../../infra/local/events.ts';
import { AUTHORIZER, ROUTES, type TableAccess } from '../../infra/routes.ts';
import {
  ACCOUNT_STACK_NAME,
  STAGE_SETTINGS,
  STAGES,
  type StageName,
  stackName,
} from '../../infra/stages.ts';
import { COUNTERS_TABLE, KEYS_TABLE, PETS_TABLE, TABLES } from '../../shared/dynamodb/tables.ts';
import { DEFAULT_BAN_POLICY } from '../../shared/rate-limit/rate-limiter.ts';
import { CURSOR_KEY_SECRET } from '../../shared/secret-definitions.ts';
import { SECRET_READ_BOUNDS } from '../../shared/secrets.ts';
import {
  ALL_FUNCTION_IDS,
  banEnvironment,
  FUNCTION_IDS,
  logicalId,
  OPERATION_IDS,
  petstore,
  secretsOf,
  stageOf,
  synthesizeStages,
} from '../support/petstore-app.ts';

/** What each stage does with its tables when the stack goes. */
const TABLE_REMOVAL: Record<StageName, { policy: string; deletionProtection: boolean }> = {
  staging: { policy: 'Delete', deletionProtection: false },
  production: { policy: 'Retain', deletionProtection: true },
};

synthesizeStages();

describe.each(STAGES)('the %s stage', (stage) => {
  const { stack, template, arnOf } = stageOf(stage);

  it('is the stack named stackName(stage)', () => {
    expect(stack().stackName).toBe(stackName(stage));
  });

  it('keeps the logical ids of the data and of what clients hold: tables, RestApi, stage, usage plans', () => {
    // GIVEN the logical ids a stage is first deployed with (a changed one would replace the
    // resource at the next deploy: an empty table, a new base URL, usage plans without their keys)
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

    // THEN each is there under its pinned id, and the stack keeps its name
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

    it('gives the pets table the status-index GSI: partition key statusShard, sort key id', () => {
      template().hasResource('AWS::DynamoDB::Table', {
        Properties: Match.objectLike({
          KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          GlobalSecondaryIndexes: [
            {
              IndexName: 'status-index',
              KeySchema: [
                { AttributeName: 'statusShard', KeyType: 'HASH' },
                { AttributeName: 'id', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          ],
        }),
      });
    });

    it("gives the keys table the OwnerKeys GSI (an account's keys: partition key owner, sort key createdAt) and the counters table its TTL, and nothing else", () => {
      const resources = template().toJSON().Resources;
      const keys = resources[logicalId(stack(), KEYS_TABLE.constructId)].Properties;
      const counters = resources[logicalId(stack(), COUNTERS_TABLE.constructId)].Properties;
      const pets = resources[logicalId(stack(), PETS_TABLE.constructId)].Properties;

      expect(keys.GlobalSecondaryIndexes).toEqual([
        {
          IndexName: 'OwnerKeys',
          KeySchema: [
            { AttributeName: 'owner', KeyType: 'HASH' },
            { AttributeName: 'createdAt', KeyType: 'RANGE' },
          ],
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

    it(`${stage === 'production' ? 'retains and deletion-protects' : 'deletes'} every table with the stack, but the audit table`, () => {
      const { policy, deletionProtection } = TABLE_REMOVAL[stage];
      for (const table of TABLES.filter((definition) => !definition.alwaysRetained)) {
        const resource = template().toJSON().Resources[logicalId(stack(), table.constructId)];
        expect(resource.DeletionPolicy).toBe(policy);
        expect(resource.UpdateReplacePolicy).toBe(policy);
        expect(resource.Properties.DeletionProtectionEnabled).toBe(deletionProtection);
      }
    });
  });

  describe('functions', () => {
    it('gives every function the timeout the local gateway emulates', () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const emulatedMs = createLambdaContext('f').getRemainingTimeInMillis();
      vi.useRealTimers();
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        expect(Properties.Timeout * 1000).toBe(emulatedMs);
      }
    });

    it('runs one Node.js 24 arm64 ESM function per route plus the authorizer', () => {
      // + the portal's BucketDeployment function (aws-cdk-lib's), which uploads its page
      template().resourceCountIs('AWS::Lambda::Function', ALL_FUNCTION_IDS.length + 1);
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        expect(Properties).toMatchObject({
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
        });
      }
    });

    it("passes every table name by its env var, the Powertools settings, the stage, its one region, the stage's source-map setting, and the operations the default ban policy", () => {
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        expect(Properties.Environment.Variables).toEqual({
          ...Object.fromEntries(
            TABLES.map((table) => [table.envVar, { Ref: logicalId(stack(), table.constructId) }]),
          ),
          POWERTOOLS_SERVICE_NAME: 'petstore',
          POWERTOOLS_METRICS_NAMESPACE: 'Petstore',
          POWERTOOLS_LOG_LEVEL: 'INFO',
          PETSTORE_STAGE: stage,
          PETSTORE_REGIONS: { Ref: 'AWS::Region' },
          ...(STAGE_SETTINGS[stage].sourceMaps && { NODE_OPTIONS: '--enable-source-maps' }),
          ...(OPERATION_IDS.includes(id) ? banEnvironment(DEFAULT_BAN_POLICY) : {}),
          ...secretsEnvironment(id),
        });
      }
    });

    /** The ARN of each secret the function's row names, and the settings of the extension. */
    function secretsEnvironment(id: string) {
      const secrets = secretsOf(id);
      if (secrets.length === 0) return {};
      return {
        ...Object.fromEntries(
          secrets.map((each) => [each.arnSetting, { Ref: logicalId(stack(), each.constructId) }]),
        ),
        PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED: 'true',
        PARAMETERS_SECRETS_EXTENSION_CACHE_SIZE: '1000',
        PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: '2773',
        PARAMETERS_SECRETS_EXTENSION_LOG_LEVEL: 'warn',
        PARAMETERS_SECRETS_EXTENSION_MAX_CONNECTIONS: '3',
        SECRETS_MANAGER_TIMEOUT_MILLIS: String(SECRET_READ_BOUNDS.secretsManagerTimeoutMs),
        SECRETS_MANAGER_TTL: '300',
        SSM_PARAMETER_STORE_TIMEOUT_MILLIS: '0',
        SSM_PARAMETER_STORE_TTL: '300',
      };
    }

    it('gives exactly the functions whose rows name secrets the AWS Parameters and Secrets Lambda Extension (arm64), which reads them', () => {
      expect(FUNCTION_IDS.filter((id) => secretsOf(id).length > 0)).toEqual(['ListPetsFunction']);
      for (const id of FUNCTION_IDS) {
        const { Properties } = template().toJSON().Resources[logicalId(stack(), id)];
        if (secretsOf(id).length > 0) {
          // The stacks name no region: CDK maps each region to AWS's layer there.
          const [layer] = Properties.Layers;
          const [mapping, , key] = layer['Fn::FindInMap'];
          expect(Properties.Layers).toHaveLength(1);
          expect(template().toJSON().Mappings[mapping]['us-east-1'][key]).toMatch(
            /^arn:aws:lambda:us-east-1:\d+:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:\d+$/,
          );
        } else {
          expect(Properties.Layers).toBeUndefined();
        }
      }
    });

    it(`generates the secrets the rows name (the cursor key) in Secrets Manager, ${stage === 'production' ? 'retained' : 'deleted'} with the stack`, () => {
      const secrets = template().findResources('AWS::SecretsManager::Secret');

      expect(Object.keys(secrets)).toEqual([logicalId(stack(), CURSOR_KEY_SECRET.constructId)]);
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

    it("grants each function exactly the DynamoDB actions its store and rate limiter call, log writes, trace writes, and the read of its row's secrets", () => {
      // Each row's tableAccess (infra/routes.ts) as the statement CDK's grant writes for it.
      const statementOf = ({ table, actions, index }: TableAccess) => {
        const arn = arnOf(table.constructId);
        return {
          Action: actions.length === 1 ? actions[0] : actions,
          Effect: 'Allow',
          Resource: index ? [arn, { 'Fn::Join': ['', [arn, `/index/${index}`]] }] : arn,
        };
      };
      const expected = Object.fromEntries(
        [...ROUTES, AUTHORIZER].map((fn) => [fn.constructId, fn.tableAccess.map(statementOf)]),
      );
      const policies = Object.values(template().findResources('AWS::IAM::Policy'));

      // + the authorizer's invoke role, the audit pipe and the portal's BucketDeployment
      expect(policies).toHaveLength(ALL_FUNCTION_IDS.length + 3);
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
          { Action: 'kms:Decrypt', Effect: 'Allow', Resource: arnOf('Key') }, // DynamoDB asks it
          {
            Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
            Effect: 'Allow',
            Resource: '*',
          },
          // Granted after the function exists, so their statements come last.
          ...secretsOf(id).map((secret) => ({
            Action: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue'],
            Effect: 'Allow',
            Resource: { Ref: logicalId(stack(), secret.constructId) },
          })),
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

  it('has no error annotation', () => {
    expect(stack().errors).toEqual([]);
  });
});

describe('the account stack', () => {
  it('holds the one AWS::ApiGateway::Account with a CloudWatch role API Gateway assumes', () => {
    const { template } = petstore.accountStacks.staging;

    expect(petstore.accountStacks.staging.stackName).toBe(ACCOUNT_STACK_NAME);
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
      },
    });
  });
});
