/**
 * The deployment's configuration: the CDK context (`-c key=value` or cdk.json's `context`) turned
 * into one typed, checked value before any stack exists, so that infra/app.ts only composes
 * stacks from it. Each key is read with deployment-context.ts's readers, and every refusal names
 * the key and what it allows.
 */
import type { Environment } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { GitHubRolesProps } from './constructs/github-roles.ts';
import type { PortalOptions } from './constructs/portal.ts';
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
import { portalOptions } from './portal-settings.ts';
import {
  ACCOUNT_STACK_NAME,
  APP_CONTEXT,
  accountStackName,
  contextKey,
  STAGES,
  type StageName,
} from './stages.ts';
import { type StageTableSettings, tableSettings } from './table-settings.ts';

/** What an operator sets for one stack of a stage (unset: the stage's `STAGE_SETTINGS`). */
export type StageOptions = Pick<
  PetstoreStackProps,
  | 'alarmEmail'
  | 'webAcl'
  | 'ipRateLimit'
  | 'domain'
  | 'adminRoleArns'
  | 'auditRetentionDays'
  | 'secretScanningKeysUrl'
>;

/** One stage's configuration. */
export interface StageConfig {
  /** The account and home region (`stageEnvironment`). */
  readonly environment: Environment;
  /** The stage's regions, home first (`stageRegions`); empty when environment-agnostic. */
  readonly regions: readonly string[];
  readonly tableSettings: StageTableSettings;
  /** The developer portal's settings (`portalOptions`), for the home region's stack. */
  readonly portal: PortalOptions;
  /**
   * Each stack's environment and options, the home region's first, then each other region's in
   * the order of `regions` (their custom domain's certificate is the region's own).
   */
  readonly stacks: readonly { readonly env: Environment; readonly options: StageOptions }[];
}

/**
 * One `AccountStack` (API Gateway's CloudWatch role, and the GitHub roles of the stages deploying
 * into its account when it is the account's first): where it deploys and under which name.
 */
export interface AccountStackConfig {
  /** Its CloudFormation name and construct id, e.g. `petstore-account-production-us-west-2`. */
  readonly name: string;
  readonly env: Environment;
  /** The stages whose home (account and region) this is; empty for another region's. */
  readonly stages: readonly StageName[];
  /** The account's GitHub roles, with the provider ARN naming the account, when this holds them. */
  readonly github?: GitHubRolesProps;
}

/** The whole deployment's configuration. */
export interface DeploymentConfig {
  /** `petstore:bootstrapQualifier`, when set (it then becomes the CDK's own qualifier). */
  readonly bootstrapQualifier?: string;
  readonly stages: Readonly<Record<StageName, StageConfig>>;
  /** The account stacks, the stages' home regions' first (`accountStacks`). */
  readonly accountStacks: readonly AccountStackConfig[];
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
    stages,
    accountStacks: accountStacks(stages, githubSettings(scope)),
  };
}

/**
 * One account stack per account and region the stages deploy into, so that nothing an account or
 * region holds once is created twice. First each stage's home, named `ACCOUNT_STACK_NAME` when
 * the stages share one, else `accountStackName(<first stage there>)`; then each other region of a
 * stage that no home shares, `<accountStackName(stage)>-<region>` for the first stage there (so
 * adding a region renames no stack). Given `github`, each account's first stack holds the GitHub
 * roles of the stages deploying into that account, with the provider ARN naming the account (an
 * environment-agnostic account takes the one naming no stage's), reaching each stage's `regions`.
 *
 * @throws Error naming `petstore:githubOidcProviderArn` when its ARNs name accounts no stage
 *   deploys into.
 */
function accountStacks(
  stages: Readonly<Record<StageName, StageConfig>>,
  github: GitHubSettings | undefined,
): AccountStackConfig[] {
  const where = ({ account, region }: Environment) => `${account}/${region}`;
  const homes = STAGES.map((stage) => stages[stage].environment);
  const providerArn = providerArns(
    homes.map(({ account }) => account),
    github?.oidcProviderArns ?? [],
  );
  const single = new Set(homes.map(where)).size === 1;
  const configs: {
    name: string;
    env: Environment;
    stages: StageName[];
    github?: GitHubRolesProps;
  }[] = [];
  for (const stage of STAGES) {
    const env = stages[stage].environment;
    const shared = configs.find((config) => where(config.env) === where(env));
    if (shared) {
      shared.stages.push(stage);
      continue;
    }
    const holdsRoles = github && !configs.some((config) => config.env.account === env.account);
    configs.push({
      name: single ? ACCOUNT_STACK_NAME : accountStackName(stage),
      env,
      stages: [stage],
      github: holdsRoles
        ? {
            repository: github.repository,
            qualifier: github.qualifier,
            oidcProviderArn: providerArn(env.account),
            stages: STAGES.filter((other) => stages[other].environment.account === env.account).map(
              (other) => ({
                stage: other,
                regions: stages[other].regions.length > 0 ? stages[other].regions : undefined,
              }),
            ),
          }
        : undefined,
    });
  }
  for (const stage of STAGES) {
    for (const region of stages[stage].regions.slice(1)) {
      const env = { account: stages[stage].environment.account, region };
      if (configs.some((config) => where(config.env) === where(env))) continue;
      configs.push({ name: `${accountStackName(stage)}-${region}`, env, stages: [] });
    }
  }
  return configs;
}

/**
 * Which of `arns` (`petstore:githubOidcProviderArn`) each of the stages' `accounts` uses: the one
 * naming it, or for an environment-agnostic account (undefined) the one naming no stage's.
 *
 * @returns The provider ARN of an account, undefined when it has none (the roles create one).
 * @throws Error naming the key when ARNs name accounts no stage deploys into.
 */
function providerArns(
  accounts: readonly (string | undefined)[],
  arns: readonly string[],
): (account: string | undefined) => string | undefined {
  const accountOf = (arn: string) => arn.split(':')[4];
  const elsewhere = arns.filter((arn) => !accounts.includes(accountOf(arn)));
  if (elsewhere.length > (accounts.includes(undefined) ? 1 : 0)) {
    throw new Error(
      `${APP_CONTEXT.githubOidcProviderArn} names an account no stage deploys into: ${elsewhere.join(', ')}`,
    );
  }
  return (account) =>
    account === undefined ? elsewhere[0] : arns.find((arn) => accountOf(arn) === account);
}

/** One stage's {@link StageConfig}. */
function stageConfig(scope: Construct, stage: StageName): StageConfig {
  const environment = stageEnvironment(scope, stage);
  const regions = stageRegions(scope, stage);
  const envs = [
    environment,
    ...regions.slice(1).map((region) => ({ account: environment.account, region })),
  ];
  const stacks = envs.map((env) => ({ env, options: stageOptions(scope, stage, env, regions[0]) }));
  return {
    environment,
    regions,
    tableSettings: tableSettings(scope, stage),
    portal: portalOptions(scope, stage, environment, stacks[0]?.options.domain),
    stacks,
  };
}

/**
 * The options an operator set for `stage` in the CDK context:
 * `petstore:<stage>:alarmEmail`, `petstore:<stage>:webAcl` (`true` or `false`),
 * `petstore:<stage>:ipRateLimit` (requests per IP per 5 minutes), the custom domain
 * (`domainOptions`), `petstore:<stage>:adminRoleArns` (role ARNs separated by commas, checked by
 * `AdminApi`), `petstore:<stage>:auditRetentionDays` and `petstore:<stage>:secretScanningKeysUrl`
 * (an https URL). Unset ones keep the stage's defaults (`STAGE_SETTINGS`, GitHub's list).
 *
 * @param environment The account and region of the stack, which its certificate must share.
 * @param homeRegion The stage's home region (by default `environment`'s): the custom domain's
 *   certificate key there is `:certificateArn`, elsewhere `:certificateArn:<region>`.
 * @throws Error when webAcl is neither true nor false, ipRateLimit is not a number,
 *   auditRetentionDays not a whole number, secretScanningKeysUrl not an https URL, or a domain
 *   setting is refused.
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
  const secretScanningKeysUrl = matching(
    scope,
    contextKey(stage, 'secretScanningKeysUrl'),
    /^https:\/\/\S+$/,
    'an https URL',
  );
  return {
    secretScanningKeysUrl,
    adminRoleArns: adminRoleArns?.split(',').map((arn) => arn.trim()),
    auditRetentionDays: auditRetentionDays === undefined ? undefined : Number(auditRetentionDays),
    alarmEmail,
    webAcl,
    ipRateLimit: ipRateLimit === undefined ? undefined : Number(ipRateLimit),
    domain: domainOptions(scope, stage, environment, homeRegion),
  };
}
