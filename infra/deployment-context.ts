/**
 * Where and how the stages deploy, read from the CDK context (`-c key=value` or cdk.json's
 * `context`) and checked: each stage's account, region and custom domain, and the GitHub
 * repository whose workflows deploy. Every refusal names the key and what it allows.
 */
import type { Environment } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ApiDomainOptions } from './constructs/api-domain.ts';
import { APP_CONTEXT, contextKey, type StageName, type StageOption } from './stages.ts';

/** The GitHub repository whose workflows deploy, and how its roles reach the bootstrap roles. */
export interface GitHubSettings {
  /** `OWNER/REPO`. */
  readonly repository: string;
  /** ARNs of existing GitHub OIDC providers, at most one per account. */
  readonly oidcProviderArns: readonly string[];
  /** The CDK bootstrap qualifier. */
  readonly qualifier: string;
}

/** The CDK's default bootstrap qualifier (`cdk bootstrap` without `--qualifier`). */
export const DEFAULT_BOOTSTRAP_QUALIFIER = 'hnb659fds';

const ACCOUNT = /^\d{12}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d+$/;
const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const QUALIFIER = /^[A-Za-z0-9_-]{1,10}$/;
const OIDC_PROVIDER_ARN =
  /^arn:aws[a-z-]*:iam::(\d{12}):oidc-provider\/token\.actions\.githubusercontent\.com$/;
/** A lower-case DNS host name, e.g. `api.example.com`. */
export const HOST_NAME =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
/** An ACM certificate's ARN; its groups are the region and the account. */
export const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):(\d{12}):certificate\/[0-9a-f-]+$/;
const HOSTED_ZONE_ID = /^Z[A-Z0-9]{1,31}$/;

/** A context value as a string (cdk.json may hold numbers or booleans), or undefined when unset. */
export function read(scope: Construct, key: string): string | undefined {
  const value = scope.node.tryGetContext(key);
  return value === undefined ? undefined : String(value);
}

/**
 * The value of `key` when it is unset or matches `pattern`.
 *
 * @throws Error `<key> must be <allowed>; got '<value>'`.
 */
export function matching(scope: Construct, key: string, pattern: RegExp, allowed: string) {
  const value = read(scope, key);
  if (value !== undefined && !pattern.test(value)) {
    throw new Error(`${key} must be ${allowed}; got '${value}'`);
  }
  return value;
}

/**
 * The value of `key` as a boolean: `true` or `false` (a string, or a boolean in cdk.json), or
 * undefined when unset.
 *
 * @throws Error `<key> must be true or false; got '<value>'`.
 */
export function flag(scope: Construct, key: string): boolean | undefined {
  const value = matching(scope, key, /^(true|false)$/, 'true or false');
  return value === undefined ? undefined : value === 'true';
}

/**
 * The AWS account and home region `stage` deploys into: `petstore:<stage>:account`, and the first
 * of {@link stageRegions}; an unset account comes from `CDK_DEFAULT_ACCOUNT` (the CDK CLI's
 * credentials); without either the stage is environment-agnostic there.
 *
 * @throws Error when the account is not 12 digits, or as {@link stageRegions}.
 */
export function stageEnvironment(scope: Construct, stage: StageName): Environment {
  return {
    account:
      matching(scope, contextKey(stage, 'account'), ACCOUNT, 'a 12-digit AWS account id') ??
      process.env.CDK_DEFAULT_ACCOUNT,
    region: stageRegions(scope, stage)[0],
  };
}

/** Region names separated by commas (spaces removed first). */
const REGIONS = /^[a-z]{2}(-[a-z]+)+-\d+(,[a-z]{2}(-[a-z]+)+-\d+)*$/;

/**
 * The regions `stage` deploys into, the home region first: `petstore:<stage>:regions`
 * (comma-separated, e.g. `us-east-1,us-west-2`); unset, the one region `petstore:<stage>:region`
 * or `CDK_DEFAULT_REGION`, or none when the stage is environment-agnostic.
 *
 * @returns Region names, each once; empty when no region is known.
 * @throws Error when a name is not a region name, a region is named twice, or `:region` is set
 *   to another region than the first of `:regions`.
 */
export function stageRegions(scope: Construct, stage: StageName): string[] {
  const regionsKey = contextKey(stage, 'regions');
  const region = matching(
    scope,
    contextKey(stage, 'region'),
    REGION,
    'an AWS region name such as eu-west-1',
  );
  const list = read(scope, regionsKey)?.replaceAll(' ', '');
  if (list === undefined) {
    const single = region ?? process.env.CDK_DEFAULT_REGION;
    return single === undefined ? [] : [single];
  }
  if (!REGIONS.test(list)) {
    throw new Error(
      `${regionsKey} must be AWS region names separated by commas, the home region first, e.g. us-east-1,us-west-2; got '${list}'`,
    );
  }
  const regions = list.split(',');
  if (new Set(regions).size < regions.length) {
    throw new Error(`${regionsKey} names a region twice; got '${list}'`);
  }
  if (region !== undefined && region !== regions[0]) {
    throw new Error(
      `${contextKey(stage, 'region')} (${region}) and ${regionsKey} (${list}) name different home regions: set only ${regionsKey}, or make its first region ${region}`,
    );
  }
  return regions;
}

/**
 * The CDK bootstrap qualifier, `petstore:bootstrapQualifier`, or the CDK's default `hnb659fds`.
 *
 * @throws Error when it is not what `cdk bootstrap --qualifier` accepts.
 */
export function bootstrapQualifier(scope: Construct): string {
  return (
    matching(
      scope,
      APP_CONTEXT.bootstrapQualifier,
      QUALIFIER,
      '1 to 10 letters, digits, _ or - (cdk bootstrap --qualifier)',
    ) ?? DEFAULT_BOOTSTRAP_QUALIFIER
  );
}

/**
 * The GitHub settings (`petstore:github`, `petstore:githubOidcProviderArn`,
 * `petstore:bootstrapQualifier`), or undefined when no repository is given. The provider key holds
 * one ARN, or several separated by commas when stages' accounts each have one already.
 *
 * @throws Error when the repository is not `OWNER/REPO`, a provider ARN is not GitHub's provider
 *   in IAM or two name one account, or the qualifier is not what `cdk bootstrap` accepts.
 */
export function githubSettings(scope: Construct): GitHubSettings | undefined {
  const repository = matching(
    scope,
    APP_CONTEXT.github,
    REPOSITORY,
    'OWNER/REPO, e.g. octo-org/petstore',
  );
  const arns = read(scope, APP_CONTEXT.githubOidcProviderArn)
    ?.split(',')
    .map((arn) => arn.trim());
  const accounts = (arns ?? []).map((arn) => {
    const account = OIDC_PROVIDER_ARN.exec(arn)?.[1];
    if (account === undefined) {
      throw new Error(
        `${APP_CONTEXT.githubOidcProviderArn} must be ARNs of IAM OIDC providers of token.actions.githubusercontent.com, e.g. arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com, separated by commas; got '${arn}'`,
      );
    }
    return account;
  });
  if (new Set(accounts).size < accounts.length) {
    throw new Error(
      `${APP_CONTEXT.githubOidcProviderArn} names one account twice; an account has one provider`,
    );
  }
  if (repository === undefined) {
    if (arns) throw new Error(`${APP_CONTEXT.githubOidcProviderArn} needs ${APP_CONTEXT.github}`);
    return undefined;
  }
  return { repository, oidcProviderArns: arns ?? [], qualifier: bootstrapQualifier(scope) };
}

/**
 * The values of the context keys `first` and `second`, both set or both unset.
 *
 * @throws Error naming the two keys when only one is set.
 */
function pair(scope: Construct, [first, second]: [string, string]) {
  const values = [read(scope, first), read(scope, second)];
  if ((values[0] === undefined) !== (values[1] === undefined)) {
    throw new Error(`${first} and ${second} go together: set both or neither`);
  }
  return values;
}

/**
 * `stage`'s custom domain in one of its regions: `petstore:<stage>:domainName` with the region's
 * certificate (`:certificateArn` in the home region, `:certificateArn:<region>` in each other
 * one), optionally `:hostedZoneId` with `:hostedZoneName` (the alias record: with several
 * `:regions`, this region's latency record, out of DNS when `:evacuate` names it) and
 * `:executeApiEndpoint`.
 *
 * @param environment The stack's account and region: its certificate must be in both.
 * @param homeRegion The stage's home region (the first of `:regions`); undefined, or the stack's
 *   own region, reads `:certificateArn`.
 * @returns Undefined when no domain is set.
 * @throws Error when one of a pair is missing (the region's certificate key named), a value has
 *   the wrong shape, the certificate is in another account or region, the domain is not in the
 *   zone, `executeApiEndpoint` is not true or false, `executeApiEndpoint` or `evacuate` is set
 *   without a domain, or `evacuate` names a region not of the stage, every region, or is set
 *   without several regions and a zone.
 */
export function domainOptions(
  scope: Construct,
  stage: StageName,
  environment: Environment,
  homeRegion: string | undefined,
): ApiDomainOptions | undefined {
  const key = (option: StageOption) => contextKey(stage, option);
  const { region } = environment;
  const certificateKey =
    homeRegion === undefined || region === undefined || region === homeRegion
      ? key('certificateArn')
      : `${key('certificateArn')}:${region}`;
  pair(scope, [key('domainName'), certificateKey]);
  const [zoneId, zoneName] = pair(scope, [key('hostedZoneId'), key('hostedZoneName')]);
  const domainName = matching(
    scope,
    key('domainName'),
    HOST_NAME,
    'a lower-case host name such as api.example.com',
  );
  const certificateArn = matching(
    scope,
    certificateKey,
    CERTIFICATE_ARN,
    'an ACM certificate ARN, arn:aws:acm:<region>:<account>:certificate/<id>',
  );
  const executeApiEndpoint = flag(scope, key('executeApiEndpoint'));
  if (domainName === undefined || certificateArn === undefined) {
    for (const option of ['hostedZoneId', 'executeApiEndpoint', 'evacuate'] as const) {
      if (read(scope, key(option)) !== undefined) {
        throw new Error(`${key(option)} applies only with ${key('domainName')}`);
      }
    }
    return undefined;
  }
  const [, certificateRegion, account] = CERTIFICATE_ARN.exec(certificateArn) ?? [];
  for (const [what, value, wanted] of [
    ['region', certificateRegion, region],
    ['account', account, environment.account],
  ]) {
    if (wanted !== undefined && value !== wanted) {
      throw new Error(
        `${certificateKey} is in ${what} ${value}, but a REGIONAL custom domain needs a certificate in the stack's ${what}, ${wanted}`,
      );
    }
  }
  let hostedZone: ApiDomainOptions['hostedZone'];
  if (zoneId !== undefined && zoneName !== undefined) {
    matching(
      scope,
      key('hostedZoneId'),
      HOSTED_ZONE_ID,
      'a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ',
    );
    const name = zoneName.replace(/\.$/, '');
    if (domainName !== name && !domainName.endsWith(`.${name}`)) {
      throw new Error(
        `${key('domainName')} must be ${key('hostedZoneName')} or a name under it; got '${domainName}' and '${zoneName}'`,
      );
    }
    hostedZone = { hostedZoneId: zoneId, zoneName: name };
  }
  const regions = stageRegions(scope, stage);
  const latency = regions.length > 1 && hostedZone !== undefined && region !== undefined;
  if (!latency && read(scope, key('evacuate')) !== undefined) {
    throw new Error(
      `${key('evacuate')} applies only with several ${key('regions')} and ${key('hostedZoneId')}`,
    );
  }
  return {
    domainName,
    certificateArn,
    hostedZone,
    executeApiEndpoint: executeApiEndpoint === true,
    latency: latency
      ? { region, evacuated: evacuated(scope, stage, regions).has(region) }
      : undefined,
  };
}

/**
 * The regions `petstore:<stage>:evacuate` takes out of the domain's DNS (comma-separated), read
 * once the stage has several `regions` and a hosted zone.
 *
 * @throws Error when it names a region not in `regions`, or every one of them (Route 53 then
 *   answers with all of them as if healthy).
 */
function evacuated(scope: Construct, stage: StageName, regions: readonly string[]): Set<string> {
  const key = contextKey(stage, 'evacuate');
  const names = new Set(
    read(scope, key)
      ?.split(',')
      .map((name) => name.trim()) ?? [],
  );
  for (const name of names) {
    if (!regions.includes(name)) {
      throw new Error(
        `${key} must name regions of ${contextKey(stage, 'regions')} (${regions.join(',')}); got '${name}'`,
      );
    }
  }
  if (names.size === regions.length) {
    throw new Error(
      `${key} names every region of the stage; Route 53 would then answer with all of them, as if healthy`,
    );
  }
  return names;
}
