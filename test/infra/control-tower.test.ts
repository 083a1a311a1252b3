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

/** The rules as the app runs them on a stage whose portal has no host name of its own. */
const appRules = () =>
  new CfnGuardValidator({
    disabledRules: Object.keys({
      ...CONTROL_TOWER_EXCEPTIONS.app,
      ...CONTROL_TOWER_EXCEPTIONS.portalWithoutDomain,
    }),
  });

/** The portal's exceptions: those of the app but ct-lambda-pr-3, then those without a domain. */
const PORTAL_EXCEPTIONS = [
  'ct-s3-pr-2',
  'ct-s3-pr-9',
  'ct-s3-pr-10',
  'ct-cloudfront-pr-4',
  'ct-cloudfront-pr-6',
  'ct-cloudfront-pr-7',
  'ct-cloudfront-pr-9',
];

/**
 * The portal's buckets, their policies and its distribution out of a copy of the staging template:
 * all the S3 and CloudFront controls read, a template small enough to check quickly.
 */
const portalPart = (): CfnTemplate => {
  const { Resources } = staging();
  const types = ['AWS::S3::Bucket', 'AWS::S3::BucketPolicy', 'AWS::CloudFront::Distribution'];
  return {
    Resources: Object.fromEntries(
      Object.entries(Resources).filter(([, resource]) => types.includes(resource.Type)),
    ),
  };
};

/** A copy of the staging template, to be broken. */
const staging = (): CfnTemplate => structuredClone(templates.staging.toJSON()) as CfnTemplate;

/** The resources of `template` of `type`. */
const resourcesOf = (template: CfnTemplate, type: string) =>
  Object.values(template.Resources).filter((resource) => resource.Type === type);

describe('the Control Tower checks', () => {
  it("disable exactly ct-lambda-pr-3 and the portal's, each with its reason; no stage adds any", () => {
    const { app, portalWithoutDomain } = CONTROL_TOWER_EXCEPTIONS;
    expect(Object.keys(app).sort()).toEqual(
      ['ct-lambda-pr-3', ...PORTAL_EXCEPTIONS.slice(0, 4)].sort(),
    );
    expect(Object.keys(portalWithoutDomain)).toEqual(PORTAL_EXCEPTIONS.slice(4));
    expect(app['ct-lambda-pr-3']).toMatch(/VPC.*\$/);
    for (const reason of [...Object.values(app), ...Object.values(portalWithoutDomain)]) {
      expect(reason.length).toBeGreaterThan(100);
    }
    for (const stage of STAGES) expect(CONTROL_TOWER_EXCEPTIONS.stages[stage]).toEqual({});
  });

  it.each(STAGES)(
    "pass %s but for ct-lambda-pr-3 (its functions are in no VPC) and the portal's exceptions",
    (stage) => {
      const template = templates[stage].toJSON() as CfnTemplate;

      expect(brokenControls(template, appRules())).toEqual([]);
      expect(brokenControls(template)).toEqual(['ct-lambda-pr-3', ...PORTAL_EXCEPTIONS].sort());
      // Two Guard runs over a stage with the admin API's functions: over 30 s on a loaded machine.
    },
    120_000,
  );

  it("pass the portal's edge stack, each with none disabled", () => {
    for (const stage of STAGES) {
      const template = Template.fromStack(petstore.portalEdgeStacks[stage]).toJSON();
      expect(brokenControls(template as CfnTemplate, new CfnGuardValidator())).toEqual([]);
    }
  });

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

    describe("the portal's", () => {
      /** A path into a resource's properties, and the value put there (undefined: deleted). */
      type Breach = readonly [path: readonly (string | number)[], value?: unknown];

      /** The portal's part with `breach` done to the resource of `type` whose id starts with `id`. */
      const broken = (type: string, id: string, [path, value]: Breach) => {
        const template = portalPart();
        const [, resource] = Object.entries(template.Resources).find(
          ([logicalId, each]) => each.Type === type && logicalId.startsWith(id),
        ) as [string, { Properties: Record<string, unknown> }];
        let at = resource.Properties as Record<string | number, unknown>;
        for (const step of path.slice(0, -1)) at = at[step] as Record<string | number, unknown>;
        const last = path[path.length - 1] as string | number;
        if (value === undefined) delete at[last];
        else at[last] = value;
        return brokenControls(template, appRules());
      };

      it('part passes as it is', () => {
        expect(brokenControls(portalPart(), appRules())).toEqual([]);
      });

      it.each<[string, string[], Breach]>([
        [
          'ct-s3-pr-1: no public access blocks',
          ['ct-s3-pr-1'],
          [['PublicAccessBlockConfiguration']],
        ],
        ['ct-s3-pr-4: no event notifications', ['ct-s3-pr-4'], [['NotificationConfiguration']]],
        ['ct-s3-pr-5: a canned ACL', ['ct-s3-pr-5'], [['AccessControl'], 'LogDeliveryWrite']],
        [
          'ct-s3-pr-6: no lifecycle rules',
          ['ct-s3-pr-3', 'ct-s3-pr-6'],
          [['LifecycleConfiguration']],
        ],
        [
          'ct-s3-pr-11: no versioning',
          ['ct-s3-pr-11', 'ct-s3-pr-3'],
          [['VersioningConfiguration']],
        ],
      ])("%s on the page's bucket", (_name, controls, breach) => {
        expect(broken('AWS::S3::Bucket', 'PortalSiteBucket', breach)).toEqual([...controls].sort());
      });

      it("ct-s3-pr-8: the page's bucket policy admitting plain HTTP", () => {
        const policies = resourcesOf(portalPart(), 'AWS::S3::BucketPolicy').filter((each) =>
          JSON.stringify(each.Properties.Bucket).includes('PortalSiteBucket'),
        );
        const [policy] = policies;
        expect(policy).toBeDefined();
        const { Statement } = (policy as (typeof policies)[number]).Properties.PolicyDocument as {
          Statement: { Effect: string }[];
        };
        const allows = Statement.filter((statement) => statement.Effect !== 'Deny');
        expect(
          broken('AWS::S3::BucketPolicy', 'PortalSiteBucketPolicy', [
            ['PolicyDocument', 'Statement'],
            allows,
          ]),
        ).toEqual(['ct-s3-pr-8']);
      });

      it.each<[string, string[], Breach]>([
        [
          'ct-cloudfront-pr-1: no default root object',
          ['ct-cloudfront-pr-1'],
          [['DefaultRootObject']],
        ],
        [
          'ct-cloudfront-pr-3: HTTP allowed',
          ['ct-cloudfront-pr-3'],
          [['DefaultCacheBehavior', 'ViewerProtocolPolicy'], 'allow-all'],
        ],
        ['ct-cloudfront-pr-5: no standard logging', ['ct-cloudfront-pr-5'], [['Logging']]],
        [
          'ct-cloudfront-pr-10: no origin access control',
          ['ct-cloudfront-pr-10'],
          [['Origins', 0, 'OriginAccessControlId']],
        ],
      ])('%s', (_name, controls, [path, value]) => {
        const breach: Breach = [['DistributionConfig', ...path], value];
        expect(broken('AWS::CloudFront::Distribution', 'PortalSiteDistribution', breach)).toEqual(
          controls,
        );
      });

      it('ct-cloudfront-pr-6, -7, -9: met with a certificate, TLS 1.2 and SNI, each broken alone', () => {
        const rules = new CfnGuardValidator({
          disabledRules: Object.keys(CONTROL_TOWER_EXCEPTIONS.app),
        });
        const withCertificate = (change: (certificate: Record<string, string>) => void) => {
          const template = portalPart();
          const [config] = resourcesOf(template, 'AWS::CloudFront::Distribution').map(
            (resource) => resource.Properties.DistributionConfig as Record<string, unknown>,
          );
          const certificate: Record<string, string> = {
            AcmCertificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/abc',
            MinimumProtocolVersion: 'TLSv1.2_2021',
            SslSupportMethod: 'sni-only',
          };
          change(certificate);
          if (config) config.ViewerCertificate = certificate;
          return brokenControls(template, rules);
        };
        expect(withCertificate(() => {})).toEqual([]);
        expect(withCertificate((c) => delete c.AcmCertificateArn)).toEqual([
          'ct-cloudfront-pr-6',
          'ct-cloudfront-pr-7',
        ]);
        expect(withCertificate((c) => (c.SslSupportMethod = 'vip'))).toEqual([
          'ct-cloudfront-pr-7',
        ]);
        expect(withCertificate((c) => (c.MinimumProtocolVersion = 'TLSv1'))).toEqual([
          'ct-cloudfront-pr-9',
        ]);
      });

      it('ct-wafv2-pr-1: a web ACL without rules', () => {
        const template = structuredClone(
          Template.fromStack(petstore.portalEdgeStacks.staging).toJSON(),
        ) as CfnTemplate;
        for (const webAcl of resourcesOf(template, 'AWS::WAFv2::WebACL')) {
          webAcl.Properties.Rules = [];
        }
        expect(brokenControls(template, new CfnGuardValidator())).toEqual(['ct-wafv2-pr-1']);
      });
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
    // The admin and portal APIs' methods go through their own invoke roles.
    const roleOfApi = new Map(
      ['Api', 'AdminApi', 'Portal/Api'].map((api) => [
        logicalId(stack(), api),
        logicalId(stack(), `${api}/InvokeRole`),
      ]),
    );
    for (const method of Object.values(template().findResources('AWS::ApiGateway::Method'))) {
      if (method.Properties.Integration.Type !== 'AWS_PROXY') continue;
      expect(method.Properties.Integration.Credentials).toEqual({
        'Fn::GetAtt': [roleOfApi.get(method.Properties.RestApiId.Ref), 'Arn'],
      });
    }
    template().hasResourceProperties('AWS::ApiGateway::Authorizer', {
      AuthorizerCredentials: { 'Fn::GetAtt': [invokeRole, 'Arn'] },
    });
  });
});
