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
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
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
synthesizeStages();

type CfnTemplate = {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
};

/** Where Guard reports a check on the template rather than on a resource (ct-kms-pr-3 does). */
const NO_RESOURCE = '(no resource)';

/**
 * The controls (e.g. `ct-kms-pr-3`) that `template` breaks, by the logical id of each resource
 * (or {@link NO_RESOURCE}).
 */
function brokenControls(
  template: CfnTemplate,
  rules = new CfnGuardValidator(),
): Map<string, string[]> {
  const path = join(outdir, `checked-${Math.random().toString(36).slice(2)}.template.json`);
  writeFileSync(path, JSON.stringify(template));
  const report = rules.validate({ templatePaths: [path] } as never);
  const broken = new Map<string, Set<string>>();
  for (const { description, violatingResources } of report.violations) {
    const [, service, number] = /\[CT\.([A-Z]+)\.PR\.(\d+)\]/.exec(description) ?? [];
    for (const { resourceLogicalId = NO_RESOURCE } of violatingResources) {
      const controls = broken.get(resourceLogicalId) ?? new Set();
      broken.set(resourceLogicalId, controls.add(`ct-${service?.toLowerCase()}-pr-${number}`));
    }
  }
  return new Map([...broken].map(([id, controls]) => [id, [...controls].sort()]));
}

/** The controls that `template` breaks, on whichever resources. */
const controlsBroken = (template: CfnTemplate, rules?: CfnGuardValidator) =>
  [...new Set([...brokenControls(template, rules).values()].flat())].sort();

/** Bound of a test that runs Guard over a stage: seconds of CPU, a minute on a busy machine. */
const GUARD_TIMEOUT_MS = 120_000;

/** The rules as the app runs them: the app-wide exceptions disabled. */
const appRules = () =>
  new CfnGuardValidator({ disabledRules: Object.keys(CONTROL_TOWER_EXCEPTIONS.app) });

/** The resources of `template` of `type`, with their logical ids. */
const resourcesOf = (template: CfnTemplate, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/**
 * A deliberate breach of one control, made in a copy of the staging template on resources no
 * other breach touches: it returns the logical ids of the resources it broke.
 */
type Breach = (template: CfnTemplate) => string[];

/** The n-th resource of `type` in `template`, broken by `change`: its logical id. */
function breakNth(
  template: CfnTemplate,
  type: string,
  n: number,
  change: (properties: Record<string, unknown>) => void,
): string[] {
  const [id, resource] = resourcesOf(template, type)[n] ?? [];
  if (!id || !resource) throw new Error(`No ${type} number ${n} in the template`);
  change(resource.Properties);
  return [id];
}

/** Without its CreateGrant guard: the statement that denies grants but for AWS resources. */
const withoutGrantGuard = (properties: Record<string, unknown>) => {
  const policy = properties.KeyPolicy as { Statement: { Sid?: string }[] };
  policy.Statement = policy.Statement.filter(
    (statement) => statement.Sid !== 'DenyGrantsExceptForAwsResources',
  );
};

/** One breach per control that the stacks meet, each named by its control. */
const BREACHES: Record<string, Breach> = {
  'ct-apigateway-pr-1: a stage without execution logging': (template) =>
    resourcesOf(template, 'AWS::ApiGateway::Stage').map(([id, stage]) => {
      delete stage.Properties.MethodSettings;
      return id;
    }),
  'ct-cloudwatch-pr-2: a log group kept a month': (template) =>
    breakNth(template, 'AWS::Logs::LogGroup', 0, (properties) => {
      properties.RetentionInDays = 30;
    }),
  'ct-cloudwatch-pr-3: a log group without a KMS key': (template) =>
    breakNth(template, 'AWS::Logs::LogGroup', 1, (properties) => {
      delete properties.KmsKeyId;
    }),
  'ct-dynamodb-pr-2: a table with the AWS owned key': (template) =>
    breakNth(template, 'AWS::DynamoDB::Table', 0, (properties) => {
      delete properties.SSESpecification;
    }),
  'ct-kms-pr-3: key 0 without its CreateGrant guard': (template) =>
    breakNth(template, 'AWS::KMS::Key', 0, withoutGrantGuard),
  'ct-kms-pr-3: key 1 without its CreateGrant guard': (template) =>
    breakNth(template, 'AWS::KMS::Key', 1, withoutGrantGuard),
  'ct-lambda-pr-2: a Lambda permission for API Gateway as LambdaIntegration makes it, its SourceArn a Fn::Join':
    (template) => {
      const [[functionId] = []] = resourcesOf(template, 'AWS::Lambda::Function');
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
      return ['Permission'];
    },
};

describe('the Control Tower checks', () => {
  it('disable exactly ct-lambda-pr-3, for the whole app, with its reason; no stage adds any', () => {
    expect(Object.keys(CONTROL_TOWER_EXCEPTIONS.app)).toEqual(['ct-lambda-pr-3']);
    expect(CONTROL_TOWER_EXCEPTIONS.app['ct-lambda-pr-3']).toMatch(/VPC.*\$/);
    for (const stage of STAGES) expect(CONTROL_TOWER_EXCEPTIONS.stages[stage]).toEqual({});
  });

  // Every rule: exactly ct-lambda-pr-3 broken says that the app's rules (the ones the shared
  // synthesis runs, ct-lambda-pr-3 disabled) find nothing.
  it.each(STAGES)(
    'pass %s but for ct-lambda-pr-3 (its functions are in no VPC)',
    (stage) => {
      const template = templates[stage].toJSON() as CfnTemplate;

      expect(controlsBroken(template)).toEqual(['ct-lambda-pr-3']);
    },
    GUARD_TIMEOUT_MS,
  );

  it('pass the account stack', () => {
    const template = petstore.accountStacks.staging.template.toJSON() as CfnTemplate;

    expect(controlsBroken(template)).toEqual([]);
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
    // GIVEN the staging template with every breach, each on resources of its own, checked in one
    // Guard run (a run over a stage takes seconds of CPU)
    const breached: Record<string, string[]> = {};
    let broken: Map<string, string[]>;
    beforeAll(() => {
      const template = structuredClone(templates.staging.toJSON()) as CfnTemplate;
      for (const [name, breach] of Object.entries(BREACHES)) breached[name] = breach(template);
      broken = brokenControls(template, appRules());
    }, GUARD_TIMEOUT_MS);

    // THEN each breached resource breaks its control and no other
    it.each(Object.keys(BREACHES))('%s', (name) => {
      const [control] = name.split(':');
      expect(breached[name]?.length).toBeGreaterThan(0);
      for (const id of breached[name] ?? []) expect([id, broken.get(id)]).toEqual([id, [control]]);
    });

    it('breaks no other control, and none on a resource that no breach touched', () => {
      const named = [...broken.keys()].filter((id) => id !== NO_RESOURCE);
      const controls = Object.keys(BREACHES).map((name) => name.split(':')[0]);

      expect(named.sort()).toEqual(Object.values(breached).flat().sort());
      expect([...new Set([...broken.values()].flat())].sort()).toEqual(
        [...new Set(controls)].sort(),
      );
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
