/**
 * AWS Control Tower's proactive controls (the Guard rules of `@cdklabs/cdk-validator-cfnguard`, run
 * by its cfn-guard 3.1): every stack of the app passes them but for the one documented exception,
 * a violation fails the synthesis, and each control the stacks meet fails on a deliberate breach of
 * a synthesized template. Also what the controls ask of the stack: the stage's KMS key on every
 * table and log group, execution logging at ERROR without data tracing, a year of logs, the
 * CreateGrant guard on every key, and an invoke role in place of Lambda permissions.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, Stack, Stage } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { stageKeyAlias } from '../../infra/constructs/stage-key.ts';
import { addControlTowerChecks, CONTROL_TOWER_EXCEPTIONS } from '../../infra/control-tower.ts';
import { STAGE_SETTINGS, STAGES } from '../../infra/stages.ts';
import { TABLES } from '../../shared/dynamodb/tables.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import {
  logicalId,
  outdir,
  petstore,
  synthesizeStages,
  templates,
} from '../support/petstore-app.ts';

// The whole app is synthesized with its checks on: a violation anywhere fails this hook.
synthesizeStages({ wholeApp: true });

type CfnTemplate = {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
};

/** The ids of the controls (e.g. `ct-kms-pr-3`) that `template` breaks, checked by `rules`. */
function brokenControls(template: CfnTemplate, rules = new CfnGuardValidator()): string[] {
  const path = join(outdir, `checked-${Math.random().toString(36).slice(2)}.template.json`);
  writeFileSync(path, JSON.stringify(template));
  const report = rules.validate({ templatePaths: [path] } as never);
  const ids = report.violations.map(({ description }) => {
    const [, service, number] = /\[CT\.([A-Z]+)\.PR\.(\d+)\]/.exec(description) ?? [];
    return `ct-${service?.toLowerCase()}-pr-${number}`;
  });
  return [...new Set(ids)].sort();
}

/** The rules as the app runs them: the app-wide exceptions disabled. */
const appRules = () =>
  new CfnGuardValidator({ disabledRules: Object.keys(CONTROL_TOWER_EXCEPTIONS.app) });

/** A copy of the staging template, to be broken. */
const staging = (): CfnTemplate => structuredClone(templates.staging.toJSON()) as CfnTemplate;

/** The resources of `template` of `type`. */
const resourcesOf = (template: CfnTemplate, type: string) =>
  Object.values(template.Resources).filter((resource) => resource.Type === type);

describe('the Control Tower checks', () => {
  it('disable exactly ct-lambda-pr-3, for the whole app, with its reason; no stage adds any', () => {
    expect(Object.keys(CONTROL_TOWER_EXCEPTIONS.app)).toEqual(['ct-lambda-pr-3']);
    expect(CONTROL_TOWER_EXCEPTIONS.app['ct-lambda-pr-3']).toMatch(/VPC.*\$/);
    for (const stage of STAGES) expect(CONTROL_TOWER_EXCEPTIONS.stages[stage]).toEqual({});
  });

  it.each(STAGES)(
    'pass %s but for ct-lambda-pr-3 (its functions are in no VPC)',
    (stage) => {
      const template = templates[stage].toJSON() as CfnTemplate;

      expect(brokenControls(template, appRules())).toEqual([]);
      expect(brokenControls(template)).toEqual(['ct-lambda-pr-3']);
      // Two Guard runs over a stage with the admin API's functions: over 30 s on a loaded machine.
    },
    120_000,
  );

  it('pass the account stack', () => {
    const template = Template.fromStack(petstore.accountStacks.staging).toJSON() as CfnTemplate;

    expect(brokenControls(template, new CfnGuardValidator())).toEqual([]);
  });

  it("fail the synthesis on a violation in a stage's stack or in a stack of the app", () => {
    // GIVEN an app whose stages and own stack each hold a log group kept a week, unencrypted
    const build = (where: 'stage' | 'app') => {
      const app = new App({ outdir: join(outdir, `breach-${where}`) });
      const stages = STAGES.map((stage) => new Stage(app, stage));
      const scope = where === 'stage' ? (stages[0] as Stage) : app;
      new LogGroup(new Stack(scope, 'Breach'), 'Logs', { retention: RetentionDays.ONE_WEEK });
      addControlTowerChecks(app);
      return app;
    };

    // WHEN each is synthesized THEN the synthesis fails, naming the controls
    expect(() => build('stage').synth()).toThrow(/CT\.CLOUDWATCH\.PR\.2/);
    expect(() => build('app').synth()).toThrow(/CT\.CLOUDWATCH\.PR\.2/);
  });

  describe('each control met fails on a deliberate breach', () => {
    it('ct-apigateway-pr-1: a stage without execution logging', () => {
      const template = staging();
      for (const stage of resourcesOf(template, 'AWS::ApiGateway::Stage')) {
        delete stage.Properties.MethodSettings;
      }
      expect(brokenControls(template, appRules())).toEqual(['ct-apigateway-pr-1']);
    });

    it('ct-cloudwatch-pr-2: a log group kept a month', () => {
      const template = staging();
      const [logGroup] = resourcesOf(template, 'AWS::Logs::LogGroup');
      if (logGroup) logGroup.Properties.RetentionInDays = 30;
      expect(brokenControls(template, appRules())).toEqual(['ct-cloudwatch-pr-2']);
    });

    it('ct-cloudwatch-pr-3: a log group without a KMS key', () => {
      const template = staging();
      const [logGroup] = resourcesOf(template, 'AWS::Logs::LogGroup');
      delete logGroup?.Properties.KmsKeyId;
      expect(brokenControls(template, appRules())).toEqual(['ct-cloudwatch-pr-3']);
    });

    it('ct-dynamodb-pr-2: a table with the AWS owned key', () => {
      const template = staging();
      const [table] = resourcesOf(template, 'AWS::DynamoDB::Table');
      delete table?.Properties.SSESpecification;
      expect(brokenControls(template, appRules())).toEqual(['ct-dynamodb-pr-2']);
    });

    it.each([0, 1])('ct-kms-pr-3: key %i without its CreateGrant guard', (index) => {
      const template = staging();
      const key = resourcesOf(template, 'AWS::KMS::Key')[index];
      const policy = key?.Properties.KeyPolicy as { Statement: { Sid?: string }[] };
      policy.Statement = policy.Statement.filter(
        (statement) => statement.Sid !== 'DenyGrantsExceptForAwsResources',
      );
      expect(brokenControls(template, appRules())).toEqual(['ct-kms-pr-3']);
    });

    it('ct-lambda-pr-2: a Lambda permission for API Gateway as LambdaIntegration makes it, its SourceArn a Fn::Join', () => {
      const template = staging();
      const [functionId] = Object.entries(template.Resources).find(
        ([, resource]) => resource.Type === 'AWS::Lambda::Function',
      ) as [string, unknown];
      template.Resources.Permission = {
        Type: 'AWS::Lambda::Permission',
        Properties: {
          Action: 'lambda:InvokeFunction',
          FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
          Principal: 'apigateway.amazonaws.com',
          SourceArn: {
            'Fn::Join': [
              '',
              ['arn:aws:execute-api:us-east-1:', { Ref: 'AWS::AccountId' }, ':api/v1/GET/pets'],
            ],
          },
        },
      };
      expect(brokenControls(template, appRules())).toEqual(['ct-lambda-pr-2']);
    });
  });
});

describe.each(STAGES)('the %s stack, as the controls ask', (stage) => {
  const stack = () => petstore.stacks[stage];
  const template = () => templates[stage];
  const keyRef = () => ({ 'Fn::GetAtt': [logicalId(stack(), 'Key'), 'Arn'] });

  it('has one customer managed key of its own: rotated, aliased after the stage, kept as its tables', () => {
    const key = template().toJSON().Resources[logicalId(stack(), 'Key')];

    expect(key?.Type).toBe('AWS::KMS::Key');
    expect(key?.Properties.EnableKeyRotation).toBe(true);
    expect(key?.DeletionPolicy).toBe(stage === 'production' ? 'Retain' : 'Delete');
    template().hasResourceProperties('AWS::KMS::Alias', {
      AliasName: stageKeyAlias(stage),
      TargetKeyId: keyRef(),
    });
    const [table] = Object.values(template().findResources('AWS::DynamoDB::Table'));
    expect(key?.DeletionPolicy).toBe(table?.DeletionPolicy);
  });

  it('encrypts every table and every log group with it, and keeps every log group a year', () => {
    const tables = Object.values(template().findResources('AWS::DynamoDB::Table'));
    const logGroups = Object.values(template().findResources('AWS::Logs::LogGroup'));

    expect(tables).toHaveLength(TABLES.length);
    for (const table of tables) {
      expect(table.Properties.SSESpecification).toEqual({
        KMSMasterKeyId: keyRef(),
        SSEEnabled: true,
        SSEType: 'KMS',
      });
    }
    expect(logGroups.length).toBeGreaterThanOrEqual(6);
    for (const logGroup of logGroups) {
      expect(logGroup.Properties.KmsKeyId).toEqual(keyRef());
      expect(logGroup.Properties.RetentionInDays).toBe(STAGE_SETTINGS[stage].logRetentionDays);
    }
    expect(STAGE_SETTINGS[stage].logRetentionDays).toBe(365);
  });

  it('logs the execution of every method at ERROR, without data tracing, to a log group of its own', () => {
    template().hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: API_STAGE_NAME,
      MethodSettings: [
        { ResourcePath: '/*', HttpMethod: '*', LoggingLevel: 'ERROR', DataTraceEnabled: false },
      ],
    });
    template().hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: {
        'Fn::Join': [
          '',
          ['API-Gateway-Execution-Logs_', { Ref: logicalId(stack(), 'Api') }, `/${API_STAGE_NAME}`],
        ],
      },
    });
  });

  it('invokes its functions through an invoke role, with no Lambda permission', () => {
    template().resourceCountIs('AWS::Lambda::Permission', 0);
    const invokeRole = logicalId(stack(), 'Api/InvokeRole');
    // The admin API's methods go through its own invoke role (test/infra/admin-api.test.ts).
    const adminApi = { Ref: logicalId(stack(), 'AdminApi') };
    const adminRole = logicalId(stack(), 'AdminApi/InvokeRole');
    for (const method of Object.values(template().findResources('AWS::ApiGateway::Method'))) {
      if (method.Properties.Integration.Type !== 'AWS_PROXY') continue;
      const admin = JSON.stringify(method.Properties.RestApiId) === JSON.stringify(adminApi);
      expect(method.Properties.Integration.Credentials).toEqual({
        'Fn::GetAtt': [admin ? adminRole : invokeRole, 'Arn'],
      });
    }
    template().hasResourceProperties('AWS::ApiGateway::Authorizer', {
      AuthorizerCredentials: { 'Fn::GetAtt': [invokeRole, 'Arn'] },
    });
  });
});
