/**
 * AWS Control Tower's proactive controls as the CDK checks them on every synthesis: the Guard rules
 * of `@cdklabs/cdk-validator-cfnguard` (run by the cfn-guard 3.1 binary it ships), and the one
 * place where a control is deliberately not met (docs/operations.md, "Governance").
 */
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  type App,
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  Stage,
  Validations,
} from 'aws-cdk-lib';
import { STAGES, type StageName } from './stages.ts';

/**
 * The controls not met, by Guard rule id (the rule file's name), each with its reason: `app` for
 * every stack of the app, a stage's entry for that stage's stack alone (e.g. `ct-cloudwatch-pr-2`
 * for a staging `logRetentionDays` under 365). No other rule may be disabled anywhere.
 */
export const CONTROL_TOWER_EXCEPTIONS: {
  readonly app: Readonly<Record<string, string>>;
  readonly stages: Readonly<Record<StageName, Readonly<Record<string, string>>>>;
  readonly portalWithoutDomain: Readonly<Record<string, string>>;
} = {
  app: {
    'ct-lambda-pr-3':
      'No function runs in a VPC: they reach only DynamoDB, Secrets Manager, X-Ray and CloudWatch, all public AWS endpoints over TLS with IAM, so a VPC would buy no network boundary that IAM does not already draw, and would cost private subnets in two AZs with interface endpoints for Secrets Manager, X-Ray and Logs (about $7.30 a month each per AZ, some $45 a month per stage) or NAT gateways (about $65 a month per stage) and a longer cold start with Hyperplane ENIs.',
    'ct-s3-pr-2':
      "The portal's access-log bucket logs no access of its own: into itself, each delivery of logs would be logged in turn, and a third bucket would only move the question. The site's bucket logs into it (a template test holds every other bucket to this control).",
    'ct-s3-pr-9':
      "Object Lock (write once, read many) would protect nothing the portal's buckets hold: the site's files are rebuilt from git at each deploy and served to anyone, and S3 refuses a default retention on a bucket that receives server access logs; versioning with expiring noncurrent versions keeps what a deploy replaced.",
    'ct-s3-pr-10':
      "The portal's buckets use SSE-S3, not SSE-KMS: S3 refuses server access logs into an SSE-KMS bucket, and the site's files are public by design (CloudFront serves them to anyone), so a KMS key would add a key policy for CloudFront and a KMS call per cache miss to protect nothing secret.",
    'ct-cloudfront-pr-4':
      'Origin failover needs a second origin holding the same files in another region: the portal\'s page is nothing without the user pool and portal API of the stage\'s home region, so a second bucket would keep a page up whose every call fails (docs/operations.md, "Portal", what an outage of the home region means).',
  },
  stages: { staging: {}, production: {} },
  portalWithoutDomain: {
    'ct-cloudfront-pr-6':
      "A stage without its own portal host name (portalDomainName) is served on CloudFront's *.cloudfront.net name with CloudFront's certificate; setting the host name and a us-east-1 certificate (portalCertificateArn) meets this control.",
    'ct-cloudfront-pr-7':
      "CloudFront's own certificate serves every client, SNI or not; with the portal's host name and certificate the distribution uses SNI only.",
    'ct-cloudfront-pr-9':
      "CloudFront sets the security policy of its own *.cloudfront.net certificate (TLS 1.0 and later); with the portal's host name and certificate the distribution asks TLS 1.2 (TLSv1.2_2021).",
  },
};

/** The Control Tower rules but for `exceptions`' ids. */
function controlTowerRules(exceptions: Readonly<Record<string, string>>): CfnGuardValidator {
  return new CfnGuardValidator({ disabledRules: Object.keys(exceptions) });
}

/**
 * A policy-validation plugin that checks only the templates of the app's own assembly (the
 * account stacks), not those of its stages, which their own plugins check with their own
 * exceptions (the CDK hands an app's plugins every template, nested stages' included).
 */
class AppStacksOnly implements IPolicyValidationPlugin {
  readonly name: string;
  readonly version?: string;
  readonly ruleIds?: string[];

  constructor(private readonly rules: CfnGuardValidator) {
    this.name = rules.name;
    this.version = rules.version;
    this.ruleIds = rules.ruleIds;
  }

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const templatePaths = context.stackTemplates
      .filter((stack) => !stack.stackConstructPath.includes('/'))
      .map((stack) => stack.templatePath);
    if (templatePaths.length === 0) return { success: true, violations: [] };
    return this.rules.validate({ ...context, templatePaths });
  }
}

/**
 * Adds the Control Tower checks to `app`: each stage of `STAGES` (a `Stage` child of the app named
 * after it) checked with the app's and its own exceptions, and those of `portalWithoutDomain` when
 * its portal has no host name of its own; the app's own stacks with the app's. A violation fails
 * the synthesis (`cdk synth`, and in the tests `app.synth()`).
 *
 * @param portalDomains The stages whose portal has its own host name and certificate.
 * @throws Error when a stage of `STAGES` is not yet a child of `app`.
 */
export function addControlTowerChecks(
  app: App,
  portalDomains: ReadonlySet<StageName> = new Set(),
): void {
  for (const stage of STAGES) {
    const scope = app.node.findChild(stage);
    if (!Stage.isStage(scope)) throw new Error(`${stage} is not a Stage of the app`);
    Validations.of(scope).addPlugins(
      controlTowerRules({
        ...CONTROL_TOWER_EXCEPTIONS.app,
        ...CONTROL_TOWER_EXCEPTIONS.stages[stage],
        ...(portalDomains.has(stage) ? {} : CONTROL_TOWER_EXCEPTIONS.portalWithoutDomain),
      }),
    );
  }
  Validations.of(app).addPlugins(
    new AppStacksOnly(controlTowerRules(CONTROL_TOWER_EXCEPTIONS.app)),
  );
}
