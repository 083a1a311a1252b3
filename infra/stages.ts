/**
 * The deployment stages and the names by which ops tools find a deployed stage's resources.
 * The CDK app and stack define them; the keys and deploy commands read them.
 */
import { SERVICE_NAME } from '../shared/logger.ts';
import { PLANS, type StandardPlanId } from '../shared/plans.ts';

/** The deployment environments: staging and production. */
export const STAGES = ['staging', 'production'] as const;

/** A deployment stage (one cdk.Stage, one CloudFormation stack). */
export type StageName = (typeof STAGES)[number];

/** Narrows a string (for example a CLI argument) to a {@link StageName}. */
export function isStageName(value: string): value is StageName {
  return (STAGES as readonly string[]).includes(value);
}

/** How a stage ships, guards and reports; the defaults of `PetstoreStack`'s props. */
export interface StageSettings {
  /**
   * How CodeDeploy moves an operation's traffic to a new function version: `canary` sends 10% of
   * requests for 5 minutes, `short-canary` 50% for 3 minutes, then all of them. A 5xx answer or a
   * Lambda error of the new version while its share runs rolls it back (the operation's alarms,
   * 1-minute periods); one after the shift completed does not.
   */
  readonly deployment: 'canary' | 'short-canary';
  /** A regional AWS WAF web ACL in front of the API stage. */
  readonly webAcl: boolean;
  /**
   * `NODE_OPTIONS=--enable-source-maps`: stack traces in the logs point into the TypeScript
   * sources, at the price of parsing the bundle's source map at every cold start.
   */
  readonly sourceMaps: boolean;
  /**
   * Days every log group of the stage keeps its events (the functions', the access log and the
   * execution log): one of the values CloudWatch Logs accepts (`RetentionDays`). Control Tower's ct-cloudwatch-pr-2 wants 365 days or more: a shorter value
   * fails the synthesis unless the stage's entry of `CONTROL_TOWER_EXCEPTIONS` disables that
   * control (infra/control-tower.ts).
   */
  readonly logRetentionDays: number;
  /** Days an audit entry of a key change is kept before DynamoDB's TTL deletes it. */
  readonly auditRetentionDays: number;
}

/** Days an audit entry is kept unless the stage says otherwise (`auditRetentionDays`). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 400;

/**
 * Production shifts 10% of traffic for 5 minutes behind a web ACL; staging, whose traffic is the
 * team's own, shifts half of it for 3 minutes, unfiltered. Both keep their logs a year.
 */
export const STAGE_SETTINGS: Readonly<Record<StageName, StageSettings>> = {
  staging: {
    deployment: 'short-canary',
    webAcl: false,
    sourceMaps: true,
    logRetentionDays: 365,
    auditRetentionDays: DEFAULT_AUDIT_RETENTION_DAYS,
  },
  production: {
    deployment: 'canary',
    webAcl: true,
    sourceMaps: false,
    logRetentionDays: 365,
    auditRetentionDays: DEFAULT_AUDIT_RETENTION_DAYS,
  },
};

/**
 * The options a stage takes from the CDK context: alarm e-mail, web ACL, IP rate limit; the AWS
 * account and region(s) it deploys into, and the 1.0.0 tables' conversion (docs/operations.md,
 * "Regions"); its custom domain and the regions operators took out of its DNS (docs/operations.md,
 * "Custom domain" and "Failover");
 * the roles admitted to its admin API and its audit retention (docs/operations.md, "API keys");
 * the list of GitHub's secret scanning keys (docs/operations.md, "Leaked keys");
 * its developer portal ({@link PortalOption}).
 */
export type StageOption =
  | 'alarmEmail'
  | 'webAcl'
  | 'ipRateLimit'
  | 'account'
  | 'region'
  | 'regions'
  | 'tableNames'
  | 'tableConversion'
  | 'domainName'
  | 'certificateArn'
  | 'hostedZoneId'
  | 'hostedZoneName'
  | 'executeApiEndpoint'
  | 'evacuate'
  | 'adminRoleArns'
  | 'auditRetentionDays'
  | 'secretScanningKeysUrl'
  | PortalOption;

/**
 * The options of a stage's developer portal (docs/operations.md, "Portal"): its user pool's MFA
 * and sign-up, its mail's sender, the active keys an account may hold, where Enterprise asks,
 * and its own host name.
 */
export type PortalOption =
  | 'portalMfaRequired'
  | 'portalInvitationOnly'
  | 'portalEmailFrom'
  | 'portalKeyLimit'
  | 'portalEnterpriseContactUrl'
  | 'portalDomainName'
  | 'portalCertificateArn';

/**
 * CDK context keys through which an operator sets a stage's options at deploy time, e.g.
 * `npm run deploy -- production -c petstore:production:alarmEmail=ops@example.com`.
 */
export function contextKey(stage: StageName, option: StageOption): string {
  return `${SERVICE_NAME}:${stage}:${option}`;
}

/**
 * CDK context keys of the whole app: the GitHub repository (`OWNER/REPO`) whose workflows may
 * deploy, an existing GitHub OIDC provider's ARN, and the CDK bootstrap qualifier.
 */
export const APP_CONTEXT = {
  github: `${SERVICE_NAME}:github`,
  githubOidcProviderArn: `${SERVICE_NAME}:githubOidcProviderArn`,
  bootstrapQualifier: `${SERVICE_NAME}:bootstrapQualifier`,
} as const;

/** Physical name of the IAM role a GitHub workflow job in `stage`'s environment assumes. */
export function githubRoleName(stage: StageName): string {
  return `${SERVICE_NAME}-github-${stage}`;
}

/**
 * The stages whose deploy job (`.github/workflows/deploy.yml`) rolls back after a failed smoke
 * test, and so get a GitHub rollback role. Staging stays as deployed, to be looked at.
 */
export const ROLLBACK_ON_FAILED_SMOKE: readonly StageName[] = ['production'];

/**
 * Physical name of the IAM role through which a GitHub Actions job of `stage`'s environment rolls
 * the stage back (`npm run rollback`) after a failed smoke test, e.g. `petstore-github-production-rollback`.
 */
export function githubRollbackRoleName(stage: StageName): string {
  return `${githubRoleName(stage)}-rollback`;
}

/** Physical name of the IAM role a pull request's workflow job assumes (CDK lookups only). */
export const GITHUB_PULL_REQUEST_ROLE_NAME = `${SERVICE_NAME}-github-pull-request`;

/**
 * Names of the account stack's outputs: the ARN of each stage's deploy role and rollback role
 * (`ROLLBACK_ON_FAILED_SMOKE`), only in the account stack of the account that stage deploys into,
 * and of the pull-request role.
 */
export const ACCOUNT_STACK_OUTPUTS = {
  deployRoleArn: (stage: StageName) => `${capitalized(stage)}DeployRoleArn`,
  rollbackRoleArn: (stage: StageName) => `${capitalized(stage)}RollbackRoleArn`,
  pullRequestRoleArn: 'PullRequestRoleArn',
} as const;

/** `staging` → `Staging`: a stage's name as it begins an output name. */
function capitalized(stage: StageName): string {
  return `${stage.charAt(0).toUpperCase()}${stage.slice(1)}`;
}

/**
 * CloudFormation stack name of a stage in its home region, e.g. `petstore-staging`; another
 * region's is {@link regionalStackName}.
 */
export function stackName(stage: StageName): string {
  return `${SERVICE_NAME}-${stage}`;
}

/** CloudFormation stack name of a stage in a region other than its home, e.g. `petstore-production-us-west-2`. */
export function regionalStackName(stage: StageName, region: string): string {
  return `${stackName(stage)}-${region}`;
}

/**
 * Name of the stack holding the API Gateway account's CloudWatch role (and the GitHub roles),
 * deployed once per account and region (`npx cdk deploy petstore-account`) before the first
 * stage, when both stages share one account and region; otherwise see {@link accountStackName}.
 */
export const ACCOUNT_STACK_NAME = `${SERVICE_NAME}-account`;

/**
 * Name (and construct id) of the account stack of the account and region `stage` is the first
 * to use, when the stages do not all share one: e.g. `petstore-account-production`.
 */
export function accountStackName(stage: StageName): string {
  return `${ACCOUNT_STACK_NAME}-${stage}`;
}

/** Name of the alias of each operation's function that API Gateway invokes and CodeDeploy moves. */
export const LIVE_ALIAS = 'live';

/** Names of the stack outputs that ops tools read. */
export const STACK_OUTPUTS = {
  /** Base URL of the API, ending in `/v1/`: the custom domain's when the stage has one. */
  apiBaseUrl: 'ApiBaseUrl',
  /**
   * This region's own base URL, ending in `/v1/`: its `execute-api` URL, or, when the domain
   * disabled that endpoint, the domain's URL, reached in this region through `RegionalDomainName`.
   */
  regionalApiBaseUrl: 'RegionalApiBaseUrl',
  /**
   * With a custom domain: the host of this region's domain
   * (`d-….execute-api.<region>.amazonaws.com`), to connect to with the domain's name as TLS SNI
   * and `Host`.
   */
  regionalDomainName: 'RegionalDomainName',
  /** With latency records: the id of this region's Route 53 health check (the manual override). */
  healthCheckId: 'HealthCheckId',
  /** Id of the RestApi. */
  restApiId: 'RestApiId',
  /** Physical name of the pets table (read by the restore command). */
  petsTableName: 'PetsTableName',
  /** Physical name of the keys table. */
  keysTableName: 'KeysTableName',
  /** Physical name of the counters table (rate-limit windows and bans). */
  countersTableName: 'CountersTableName',
  /** URL of the stage's CloudWatch dashboard. */
  dashboardUrl: 'DashboardUrl',
  /** ARN of the SNS topic every alarm of the stage notifies. */
  alarmTopicArn: 'AlarmTopicArn',
  /** Base URL of the admin API, ending in `/admin/` (its own execute-api hostname). */
  adminApiBaseUrl: 'AdminApiBaseUrl',
  /** Physical name of the audit table. */
  auditTableName: 'AuditTableName',
  /** Days an audit entry is kept (the stage's `auditRetentionDays`). */
  auditRetentionDays: 'AuditRetentionDays',
  /** The stage's regions, comma-separated, the home region first (every region's stack). */
  regions: 'Regions',
  /** The developer portal's URL, ending in `/` (its own host name, or CloudFront's). */
  portalUrl: 'PortalUrl',
  /** Base URL of the portal API, ending in `/portal` (its own execute-api hostname). */
  portalApiBaseUrl: 'PortalApiBaseUrl',
  /** Id of the portal's Cognito user pool (accounts: docs/operations.md, "Portal"). */
  userPoolId: 'PortalUserPoolId',
  /** Id of the portal's app client (the ID tokens' `aud`). */
  userPoolClientId: 'PortalUserPoolClientId',
  /** Name of the bucket the portal's site is served from. */
  portalBucketName: 'PortalBucketName',
  /** Id of the portal's CloudFront distribution. */
  portalDistributionId: 'PortalDistributionId',
} as const;

/**
 * CloudFormation stack name of a stage's portal edge stack (us-east-1: the CloudFront-scope web
 * ACL), e.g. `petstore-production-portal-edge`.
 */
export function portalEdgeStackName(stage: StageName): string {
  return `${stackName(stage)}-portal-edge`;
}

/** Name of the stack output holding the id of a plan's usage plan, e.g. `UsagePlanIdFree`. */
export function usagePlanOutputName(plan: StandardPlanId): string {
  return `UsagePlanId${PLANS[plan].name}`;
}
