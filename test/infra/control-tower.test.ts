/**
 * AWS Control Tower's proactive controls (the Guard rules of `@cdklabs/cdk-validator-cfnguard`, run
 * by its cfn-guard 3.1): every stack of the app passes them but for the documented exceptions (the
 * functions' VPC, the portal's buckets and distribution), a violation fails the synthesis, and
 * each control the stacks meet fails on a deliberate breach of a synthesized template. What the
 * controls ask of each stage's stack: test/infra/control-tower-stack.test.ts.
 */
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { App, Stack, Stage } from 'aws-cdk-lib';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { beforeAll, describe, expect, it } from 'vitest';
import { addControlTowerChecks, CONTROL_TOWER_EXCEPTIONS } from '../../infra/control-tower.ts';
import { STAGES } from '../../infra/stages.ts';
import {
  breakBucket,
  breakDistribution,
  brokenControls,
  type CfnTemplate,
  controlsBroken,
  NO_RESOURCE,
  resourcesOf,
} from '../support/guard-controls.ts';
import { outdir, petstore, synthesizeStages, templates } from '../support/petstore-app.ts';

// The whole app is synthesized with its checks on: a violation anywhere fails this hook.
synthesizeStages();

/** Bound of a test that runs Guard over a stage: seconds of CPU, a minute on a busy machine. */
const GUARD_TIMEOUT_MS = 120_000;

/** The rules as the app runs them on a stage whose portal has no host name of its own. */
const appRules = () =>
  new CfnGuardValidator({
    disabledRules: Object.keys({
      ...CONTROL_TOWER_EXCEPTIONS.app,
      ...CONTROL_TOWER_EXCEPTIONS.portalWithoutDomain,
    }),
  });

/** The portal's exceptions: the app's (but ct-lambda-pr-3), then a stage's without a domain. */
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

/** The controls a breach's name begins with, e.g. `ct-s3-pr-3, ct-s3-pr-6: …`, sorted. */
const controlsOf = (name: string) => (name.split(':')[0] ?? '').split(', ').sort();

/** One breach per control that the stacks meet, each named by its control(s). */
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
  'ct-s3-pr-1: a bucket without its public access blocks': breakBucket('S3Pr1', (properties) => {
    delete properties.PublicAccessBlockConfiguration;
  }),
  'ct-s3-pr-3, ct-s3-pr-6: a versioned bucket without lifecycle rules': breakBucket(
    'S3Pr6',
    (properties) => {
      delete properties.LifecycleConfiguration;
    },
  ),
  'ct-s3-pr-4: a bucket without event notifications': breakBucket('S3Pr4', (properties) => {
    delete properties.NotificationConfiguration;
  }),
  'ct-s3-pr-5: a bucket with a canned ACL': breakBucket('S3Pr5', (properties) => {
    properties.AccessControl = 'LogDeliveryWrite';
  }),
  'ct-s3-pr-11: a bucket without versioning': breakBucket('S3Pr11', (properties) => {
    delete properties.VersioningConfiguration;
  }),
  "ct-s3-pr-8: the portal's bucket policy admitting plain HTTP": (template) => {
    const [id, policy] =
      resourcesOf(template, 'AWS::S3::BucketPolicy').find(([logicalId]) =>
        logicalId.startsWith('PortalSiteBucketPolicy'),
      ) ?? [];
    if (!id || !policy) throw new Error("No portal bucket's policy in the template");
    const document = policy.Properties.PolicyDocument as { Statement: { Effect: string }[] };
    document.Statement = document.Statement.filter((statement) => statement.Effect !== 'Deny');
    return [id];
  },
  'ct-cloudfront-pr-1: a distribution without a default root object': breakDistribution(
    'CloudFrontPr1',
    (config) => {
      delete config.DefaultRootObject;
    },
  ),
  'ct-cloudfront-pr-3: a distribution that serves HTTP': breakDistribution(
    'CloudFrontPr3',
    (config) => {
      (config.DefaultCacheBehavior as Record<string, unknown>).ViewerProtocolPolicy = 'allow-all';
    },
  ),
  'ct-cloudfront-pr-5: a distribution without standard logging': breakDistribution(
    'CloudFrontPr5',
    (config) => {
      delete config.Logging;
    },
  ),
  'ct-cloudfront-pr-10: an S3 origin without origin access control': breakDistribution(
    'CloudFrontPr10',
    (config) => {
      const [origin] = config.Origins as Record<string, unknown>[];
      if (origin) delete origin.OriginAccessControlId;
    },
  ),
  'ct-wafv2-pr-1: a web ACL without rules': (template) => {
    const [, webAcl] =
      resourcesOf(
        petstore.portalEdgeStacks.staging.template.toJSON() as CfnTemplate,
        'AWS::WAFv2::WebACL',
      )[0] ?? [];
    if (!webAcl) throw new Error('No web ACL in the edge stack');
    template.Resources.EmptyWebAcl = {
      ...webAcl,
      Properties: { ...webAcl.Properties, Rules: [] },
    };
    return ['EmptyWebAcl'];
  },
};

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

  // Every rule: exactly the exceptions broken says that the app's rules (the ones the shared
  // synthesis runs, the exceptions disabled) find nothing.
  it.each(STAGES)(
    "pass %s but for ct-lambda-pr-3 (its functions are in no VPC) and the portal's exceptions",
    (stage) => {
      const template = templates[stage].toJSON() as CfnTemplate;

      expect(controlsBroken(outdir, template)).toEqual(
        ['ct-lambda-pr-3', ...PORTAL_EXCEPTIONS].sort(),
      );
    },
    GUARD_TIMEOUT_MS,
  );

  it('pass the account stack and each portal edge stack, no rule disabled', () => {
    for (const stack of [
      petstore.accountStacks.staging,
      ...Object.values(petstore.portalEdgeStacks),
    ]) {
      expect(controlsBroken(outdir, stack.template.toJSON() as CfnTemplate)).toEqual([]);
    }
  });

  it("meet ct-cloudfront-pr-6, -7 and -9 with the portal's certificate, TLS 1.2 and SNI, each broken alone", () => {
    // GIVEN the portal's distribution, its origin access control and buckets, with a certificate
    // of its own (ct-cloudfront-pr-10's Guard rule fails to run on an origin whose control is gone)
    const withCertificate = (change: (certificate: Record<string, string>) => void) => {
      const types = [
        'AWS::S3::Bucket',
        'AWS::CloudFront::Distribution',
        'AWS::CloudFront::OriginAccessControl',
      ];
      const { Resources } = templates.staging.toJSON() as CfnTemplate;
      const template: CfnTemplate = {
        Resources: Object.fromEntries(
          Object.entries(structuredClone(Resources)).filter(([, each]) =>
            types.includes(each.Type),
          ),
        ),
      };
      const certificate: Record<string, string> = {
        AcmCertificateArn: 'arn:aws:acm:us-east-1:111111111111:certificate/0a1b2c3d',
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      };
      change(certificate);
      for (const [, distribution] of resourcesOf(template, 'AWS::CloudFront::Distribution')) {
        (distribution.Properties.DistributionConfig as Record<string, unknown>).ViewerCertificate =
          certificate;
      }
      // WHEN the rules check it, only the app's exceptions disabled
      const rules = new CfnGuardValidator({
        disabledRules: Object.keys(CONTROL_TOWER_EXCEPTIONS.app),
      });
      return controlsBroken(outdir, template, rules);
    };

    // THEN it meets them, and each change breaks what it should
    expect(withCertificate(() => {})).toEqual([]);
    expect(withCertificate((c) => delete c.AcmCertificateArn)).toEqual([
      'ct-cloudfront-pr-6',
      'ct-cloudfront-pr-7',
    ]);
    expect(withCertificate((c) => (c.SslSupportMethod = 'vip'))).toEqual(['ct-cloudfront-pr-7']);
    expect(withCertificate((c) => (c.MinimumProtocolVersion = 'TLSv1'))).toEqual([
      'ct-cloudfront-pr-9',
    ]);
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
      broken = brokenControls(outdir, template, appRules());
    }, GUARD_TIMEOUT_MS);

    // THEN each breached resource breaks its control and no other
    it.each(Object.keys(BREACHES))('%s', (name) => {
      const controls = controlsOf(name);
      expect(breached[name]?.length).toBeGreaterThan(0);
      for (const id of breached[name] ?? []) expect([id, broken.get(id)]).toEqual([id, controls]);
    });

    it('breaks no other control, and none on a resource that no breach touched', () => {
      const named = [...broken.keys()].filter((id) => id !== NO_RESOURCE);
      const controls = Object.keys(BREACHES).flatMap(controlsOf);

      expect(named.sort()).toEqual(Object.values(breached).flat().sort());
      expect([...new Set([...broken.values()].flat())].sort()).toEqual(
        [...new Set(controls)].sort(),
      );
    });
  });
});
