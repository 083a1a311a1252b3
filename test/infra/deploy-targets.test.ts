/**
 * Where the stages deploy (issue 33, "Accounts and regions per stage"): each stage's account and
 * region from the context, one account stack per account and region the stages use (the GitHub
 * roles in the first of each account), nothing an account or region holds once made twice, each
 * setting refused with a message that says what is allowed, and cdk-nag and cfn-lint on an app of
 * two accounts with the roles, a custom domain and the portal's settings (`TWO_ACCOUNTS_CONTEXT`,
 * synthesized once per run and shared with test/infra/portal-settings.test.ts).
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { PetstoreApp } from '../../infra/app.ts';
import { githubSettings, stageEnvironment } from '../../infra/deployment-context.ts';
import {
  ACCOUNT_STACK_NAME,
  ACCOUNT_STACK_OUTPUTS,
  APP_CONTEXT,
  contextKey,
  GITHUB_PULL_REQUEST_ROLE_NAME,
  githubRoleName,
  githubRollbackRoleName,
  ROLLBACK_ON_FAILED_SMOKE,
  STAGES,
} from '../../infra/stages.ts';
import { cfnLintTemplates } from '../support/cfn-lint.ts';
import {
  deploymentApp,
  ENVIRONMENTS,
  environmentContext,
  GITHUB_CONTEXT,
  TWO_ACCOUNTS_CONTEXT,
} from '../support/deployment-app.ts';
import {
  SYNTHESIS_TIMEOUT_MS,
  type SynthesizedApp,
  synthesizedApp,
} from '../support/synthesized-app.ts';

// The first app of the file loads the CDK's modules cold, and each synthesizes the whole app with
// its checks (Guard over every stage, the portal's resources included): 40 s alone at load
// average 6, over 90 s beside another file's synthesis at load average 13.
vi.setConfig({ testTimeout: 180_000 });

/** The distinct account stacks of an app, in stage order. */
function accountStacks(app: PetstoreApp) {
  return [...new Set(STAGES.map((stage) => app.accountStacks[stage]))];
}

/** Physical names of an account stack's IAM roles (the CloudWatch role has none). */
function roleNames(template: Template): string[] {
  return Object.values(template.findResources('AWS::IAM::Role'))
    .flatMap(({ Properties }) => (Properties.RoleName ? [Properties.RoleName] : []))
    .sort();
}

/** Fails unless every account and region holds one API Gateway account setting, and every account one set of GitHub roles. */
function expectNoSingletonTwice(app: PetstoreApp) {
  const places = accountStacks(app).map((stack) => `${stack.account}/${stack.region}`);
  expect(new Set(places).size).toBe(places.length);
  const roleAccounts = accountStacks(app).flatMap((stack) =>
    roleNames(Template.fromStack(stack)).map((name) => `${stack.account}:${name}`),
  );
  expect(new Set(roleAccounts).size).toBe(roleAccounts.length);
  for (const stack of accountStacks(app)) {
    Template.fromStack(stack).resourceCountIs('AWS::ApiGateway::Account', 1);
  }
}

describe('accounts and regions per stage', () => {
  it('keeps the one petstore-account stack when the stages share an account and region', () => {
    // GIVEN both stages in one account and region, and the repository
    const shared = ENVIRONMENTS.staging;
    const app = deploymentApp({
      ...GITHUB_CONTEXT,
      ...environmentContext({ staging: shared, production: shared }),
    });

    // THEN one account stack, named as before, holds every stage's role and every output
    expect(accountStacks(app)).toHaveLength(1);
    const [stack] = accountStacks(app);
    expect(stack?.stackName).toBe(ACCOUNT_STACK_NAME);
    expect(stack?.node.id).toBe(ACCOUNT_STACK_NAME);
    expect([stack?.account, stack?.region]).toEqual([shared.account, shared.region]);
    const template = Template.fromStack(app.accountStacks.staging);
    expect(roleNames(template)).toEqual(
      [
        ...STAGES.map(githubRoleName),
        ...ROLLBACK_ON_FAILED_SMOKE.map(githubRollbackRoleName),
        GITHUB_PULL_REQUEST_ROLE_NAME,
      ].sort(),
    );
    expect(Object.keys(template.findOutputs('*')).sort()).toEqual(
      [
        ...STAGES.map(ACCOUNT_STACK_OUTPUTS.deployRoleArn),
        ...ROLLBACK_ON_FAILED_SMOKE.map(ACCOUNT_STACK_OUTPUTS.rollbackRoleArn),
        ACCOUNT_STACK_OUTPUTS.pullRequestRoleArn,
      ].sort(),
    );
    expectNoSingletonTwice(app);
  });

  it('keeps the one petstore-account stack, environment-agnostic, when nothing is set', () => {
    const app = deploymentApp({});

    expect(accountStacks(app).map((stack) => stack.stackName)).toEqual([ACCOUNT_STACK_NAME]);
  });

  it('deploys each stage, and an account stack, into its own account and region', () => {
    // GIVEN each stage in its own account and region
    const app = deploymentApp({ ...GITHUB_CONTEXT, ...environmentContext() });

    // THEN each stage's stack and account stack are there, the latter named after the stage
    for (const stage of STAGES) {
      const { account, region } = ENVIRONMENTS[stage];
      expect([app.stacks[stage].account, app.stacks[stage].region]).toEqual([account, region]);
      const accountStack = app.accountStacks[stage];
      expect([accountStack.account, accountStack.region]).toEqual([account, region]);
      expect(accountStack.stackName).toBe(`${ACCOUNT_STACK_NAME}-${stage}`);
    }
    expect(accountStacks(app)).toHaveLength(2);
    expectNoSingletonTwice(app);
  });

  it("puts one account's roles in its first region's stack when its stages use two regions", () => {
    // GIVEN both stages in staging's account, production in another region
    const app = deploymentApp({
      ...GITHUB_CONTEXT,
      ...environmentContext({
        staging: ENVIRONMENTS.staging,
        production: { ...ENVIRONMENTS.production, account: ENVIRONMENTS.staging.account },
      }),
    });

    // THEN two account stacks (API Gateway's setting is per region), the roles only in staging's
    expect(accountStacks(app)).toHaveLength(2);
    expectNoSingletonTwice(app);
    expect(roleNames(Template.fromStack(app.accountStacks.production))).toEqual([]);
    const template = Template.fromStack(app.accountStacks.staging);
    const { account } = ENVIRONMENTS.staging;
    const lookupRole = (region: string) =>
      `arn:aws:iam::${account}:role/cdk-hnb659fds-lookup-role-${account}-${region}`;
    const resourcesOf = (roleName: string) =>
      Object.values(
        template.findResources('AWS::IAM::Role', { Properties: { RoleName: roleName } }),
      )[0]?.Properties.Policies[0].PolicyDocument.Statement[0].Resource;
    // production's role reaches the bootstrap roles of production's region
    expect(resourcesOf(githubRoleName('production'))).toContain(
      lookupRole(ENVIRONMENTS.production.region),
    );
    // the pull-request role may look up in both regions
    expect(resourcesOf(GITHUB_PULL_REQUEST_ROLE_NAME)).toEqual([
      lookupRole(ENVIRONMENTS.staging.region),
      lookupRole(ENVIRONMENTS.production.region),
    ]);
  });
});

describe('deployment settings refused', () => {
  /** An app scope holding `context`, for the readers that do not build the app. */
  const scope = (context: Record<string, string>) => new App({ context });

  it.each([
    [
      { [contextKey('staging', 'account')]: '1234' },
      "petstore:staging:account must be a 12-digit AWS account id; got '1234'",
    ],
    [
      { [contextKey('production', 'region')]: 'Ireland' },
      "petstore:production:region must be an AWS region name such as eu-west-1; got 'Ireland'",
    ],
  ])('refuses the stage environment %o', (context, message) => {
    expect(() => STAGES.map((stage) => stageEnvironment(scope(context), stage))).toThrow(message);
  });

  it.each([
    [
      { [APP_CONTEXT.github]: 'petstore' },
      "petstore:github must be OWNER/REPO, e.g. octo-org/petstore; got 'petstore'",
    ],
    [
      { [APP_CONTEXT.github]: 'octo-org/*' },
      "petstore:github must be OWNER/REPO, e.g. octo-org/petstore; got 'octo-org/*'",
    ],
    [
      { ...GITHUB_CONTEXT, [APP_CONTEXT.bootstrapQualifier]: 'much-too-long' },
      "petstore:bootstrapQualifier must be 1 to 10 letters, digits, _ or - (cdk bootstrap --qualifier); got 'much-too-long'",
    ],
    [
      {
        ...GITHUB_CONTEXT,
        [APP_CONTEXT.githubOidcProviderArn]:
          'arn:aws:iam::111111111111:oidc-provider/accounts.google.com',
      },
      'petstore:githubOidcProviderArn must be ARNs of IAM OIDC providers of token.actions.githubusercontent.com',
    ],
    [
      {
        [APP_CONTEXT.githubOidcProviderArn]:
          'arn:aws:iam::111111111111:oidc-provider/token.actions.githubusercontent.com',
      },
      'petstore:githubOidcProviderArn needs petstore:github',
    ],
  ])('refuses the GitHub settings %o', (context, message) => {
    expect(() => githubSettings(scope(context))).toThrow(message);
  });

  it("refuses, building the app, a provider ARN in none of the stages' accounts", () => {
    expect(() =>
      deploymentApp({
        ...GITHUB_CONTEXT,
        ...environmentContext(),
        [APP_CONTEXT.githubOidcProviderArn]:
          'arn:aws:iam::333333333333:oidc-provider/token.actions.githubusercontent.com',
      }),
    ).toThrow('petstore:githubOidcProviderArn names an account no stage deploys into');
  });

  it('refuses, building the app, a bad account', () => {
    expect(() => deploymentApp({ [contextKey('production', 'account')]: 'prod' })).toThrow(
      "petstore:production:account must be a 12-digit AWS account id; got 'prod'",
    );
  });
});

describe('the app in two accounts with the GitHub roles, a custom domain and every portal setting', () => {
  // GIVEN each stage in its own account, the repository, production's domain with its zone and
  // its portal's settings (TWO_ACCOUNTS_CONTEXT): synthesized once per run, its checks on
  let petstore: SynthesizedApp;
  beforeAll(async () => {
    petstore = await synthesizedApp(TWO_ACCOUNTS_CONTEXT);
  }, SYNTHESIS_TIMEOUT_MS);

  it('has no unacknowledged cdk-nag (AWS Solutions) finding: the synthesis, which fails on one, passed', () => {
    expect(petstore.stacks.production.errors).toEqual([]);
    expect(petstore.stacks.staging.errors).toEqual([]);
  });

  it('passes cfn-lint in every template', () => {
    // WHEN cfn-lint reads every template of the assembly
    const result = cfnLintTemplates(petstore.directory);
    // Two account stacks; each stage's home stack and its portal's edge stack in us-east-1.
    expect(result.files).toHaveLength(2 + 2 * STAGES.length);

    // THEN it reports nothing, and exits 0
    expect(result.findings, result.stderr).toEqual([]);
    expect(result.status).toBe(0);
  }, 120_000);
});
