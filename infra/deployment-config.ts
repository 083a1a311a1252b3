/**
 * The deployment's configuration: the CDK context (`-c key=value` or cdk.json's `context`) turned
 * into one typed, checked value before any stack exists, so that infra/app.ts only composes
 * stacks from it. Each key is read with deployment-context.ts's readers, and every refusal names
 * the key and what it allows.
 */
import type { Environment } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import {
  bootstrapQualifier,
  domainOptions,
  flag,
  type GitHubSettings,
  githubSettings,
  matching,
  read,
  stageEnvironment,
  stageRegions,
} from './deployment-context.ts';
import type { PetstoreStackProps } from './petstore-stack.ts';
import { APP_CONTEXT, contextKey, STAGES, type StageName } from './stages.ts';
import { type StageTableSettings, tableSettings } from './table-settings.ts';

/** What an operator sets for one stack of a stage (unset: the stage's `STAGE_SETTINGS`). */
export type StageOptions = Pick<
  PetstoreStackProps,
  'alarmEmail' | 'webAcl' | 'ipRateLimit' | 'domain' | 'adminRoleArns' | 'auditRetentionDays'
>;

/** One stage's configuration. */
export interface StageConfig {
  /** The account and home region (`stageEnvironment`). */
  readonly environment: Environment;
  /** The stage's regions, home first (`stageRegions`); empty when environment-agnostic. */
  readonly regions: readonly string[];
  readonly tableSettings: StageTableSettings;
  /**
   * Each stack's environment and options, the home region's first, then each other region's in
   * the order of `regions` (their custom domain's certificate is the region's own).
   */
  readonly stacks: readonly { readonly env: Environment; readonly options: StageOptions }[];
}

/** The whole deployment's configuration. */
export interface DeploymentConfig {
  /** `petstore:bootstrapQualifier`, when set (it then becomes the CDK's own qualifier). */
  readonly bootstrapQualifier?: string;
  /** The GitHub repository whose workflows deploy, when `petstore:github` is set. */
  readonly github?: GitHubSettings;
  readonly stages: Readonly<Record<StageName, StageConfig>>;
}

/**
 * Reads and checks the whole context.
 *
 * @throws Error naming the key, for the first value refused (see each reader).
 */
export function deploymentConfig(scope: Construct): DeploymentConfig {
  const qualifier = read(scope, APP_CONTEXT.bootstrapQualifier);
  const stages = Object.fromEntries(
    STAGES.map((stage) => [stage, stageConfig(scope, stage)]),
  ) as Record<StageName, StageConfig>;
  return {
    ...(qualifier !== undefined && { bootstrapQualifier: bootstrapQualifier(scope) }),
    github: githubSettings(scope),
    stages,
  };
}

/** One stage's {@link StageConfig}. */
function stageConfig(scope: Construct, stage: StageName): StageConfig {
  const environment = stageEnvironment(scope, stage);
  const regions = stageRegions(scope, stage);
  const envs = [
    environment,
    ...regions.slice(1).map((region) => ({ account: environment.account, region })),
  ];
  return {
    environment,
    regions,
    tableSettings: tableSettings(scope, stage),
    stacks: envs.map((env) => ({ env, options: stageOptions(scope, stage, env, regions[0]) })),
  };
}

/**
 * The options an operator set for `stage` in the CDK context:
 * `petstore:<stage>:alarmEmail`, `petstore:<stage>:webAcl` (`true` or `false`),
 * `petstore:<stage>:ipRateLimit` (requests per IP per 5 minutes), the custom domain
 * (`domainOptions`), `petstore:<stage>:adminRoleArns` (role ARNs separated by commas, checked by
 * `AdminApi`) and `petstore:<stage>:auditRetentionDays`. Unset ones keep the stage's defaults
 * (`STAGE_SETTINGS`).
 *
 * @param environment The account and region of the stack, which its certificate must share.
 * @param homeRegion The stage's home region (by default `environment`'s): the custom domain's
 *   certificate key there is `:certificateArn`, elsewhere `:certificateArn:<region>`.
 * @throws Error when webAcl is neither true nor false, ipRateLimit is not a number,
 *   auditRetentionDays not a whole number, or a domain setting is refused.
 */
export function stageOptions(
  scope: Construct,
  stage: StageName,
  environment: Environment,
  homeRegion: string | undefined = environment.region,
): StageOptions {
  const webAcl = flag(scope, contextKey(stage, 'webAcl'));
  const ipRateLimit = read(scope, contextKey(stage, 'ipRateLimit'));
  if (ipRateLimit !== undefined && Number.isNaN(Number(ipRateLimit))) {
    throw new Error(`${contextKey(stage, 'ipRateLimit')} must be a number; got '${ipRateLimit}'`);
  }
  const alarmEmail = read(scope, contextKey(stage, 'alarmEmail'));
  const adminRoleArns = read(scope, contextKey(stage, 'adminRoleArns'));
  const auditRetentionDays = matching(
    scope,
    contextKey(stage, 'auditRetentionDays'),
    /^[0-9]+$/,
    'a whole number of days',
  );
  return {
    adminRoleArns: adminRoleArns?.split(',').map((arn) => arn.trim()),
    auditRetentionDays: auditRetentionDays === undefined ? undefined : Number(auditRetentionDays),
    alarmEmail,
    webAcl,
    ipRateLimit: ipRateLimit === undefined ? undefined : Number(ipRateLimit),
    domain: domainOptions(scope, stage, environment, homeRegion),
  };
}
