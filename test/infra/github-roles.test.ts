/**
 * The GitHub deploy roles of the account stacks (issue 33, "Roles, not keys"): each trust policy,
 * read from the synthesized template, evaluated against sample GitHub OIDC claims; what each role
 * may do; the provider, created or imported; the outputs the workflows' variables come from. A
 * stage in two regions: github-roles-regions.test.ts.
 */
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { GITHUB_OIDC_AUDIENCE, GITHUB_OIDC_ISSUER } from '../../infra/constructs/github-roles.ts';
import { CLOUDFRONT_WEB_ACL_REGION } from '../../infra/constructs/portal-edge-stack.ts';
import {
  ACCOUNT_STACK_OUTPUTS,
  APP_CONTEXT,
  GITHUB_PULL_REQUEST_ROLE_NAME,
  githubRoleName,
  githubRollbackRoleName,
  ROLLBACK_ON_FAILED_SMOKE,
  STAGES,
  type StageName,
} from '../../infra/stages.ts';
import {
  deploymentApp,
  ENVIRONMENTS,
  environmentContext,
  GITHUB_CONTEXT,
  REPOSITORY,
  TWO_ACCOUNTS_CONTEXT,
} from '../support/deployment-app.ts';
import { bootstrapRoles, roleNamed } from '../support/github-roles-template.ts';
import { SYNTHESIS_TIMEOUT_MS, synthesizedApp } from '../support/synthesized-app.ts';
import { admits } from '../support/trust-policy.ts';

/** Sample claims of a GitHub Actions token: `sub` as given, the STS audience unless overridden. */
function claims(sub: string, aud = GITHUB_OIDC_AUDIENCE): Record<string, string> {
  return { [`${GITHUB_OIDC_ISSUER}:sub`]: sub, [`${GITHUB_OIDC_ISSUER}:aud`]: aud };
}

/** The Ref to the template's one OIDC provider: what each trust policy must federate with. */
function providerRef(template: Template) {
  const ids = Object.keys(template.findResources('AWS::IAM::OIDCProvider'));
  expect(ids).toHaveLength(1);
  return { Ref: ids[0] };
}

const templates = {} as Record<StageName, Template>;

beforeAll(async () => {
  // GIVEN the repository, and each stage in its own account and region: the app of two accounts
  // that deploy-targets and portal-settings read too, synthesized once per run
  const split = await synthesizedApp(TWO_ACCOUNTS_CONTEXT);
  for (const stage of STAGES) templates[stage] = split.accountStacks[stage].template;
}, SYNTHESIS_TIMEOUT_MS);

describe.each(STAGES)("the %s role, in its own account's stack", (stage) => {
  const other = STAGES.find((each) => each !== stage) as StageName;
  const trust = () => roleNamed(templates[stage], githubRoleName(stage)).AssumeRolePolicyDocument;
  const admitted = (sub: string, aud?: string) =>
    admits(trust(), providerRef(templates[stage]), claims(sub, aud));

  it("admits a job of the repository in the stage's environment, with the STS audience", () => {
    expect(admitted(`repo:${REPOSITORY}:environment:${stage}`)).toBe(true);
  });

  it.each([
    ['another repository', `repo:octo-org/other:environment:${stage}`],
    ['a fork-like owner', `repo:octo-org-fork/petstore:environment:${stage}`],
    ["another stage's environment", `repo:${REPOSITORY}:environment:${other}`],
    ['a branch (no environment)', `repo:${REPOSITORY}:ref:refs/heads/main`],
    ['a pull request', `repo:${REPOSITORY}:pull_request`],
  ])('refuses %s', (_, sub) => {
    expect(admitted(sub)).toBe(false);
  });

  it('refuses the right subject with another audience', () => {
    expect(admitted(`repo:${REPOSITORY}:environment:${stage}`, 'https://github.com/octo-org')).toBe(
      false,
    );
  });

  it("may only assume its account's deploy, file-publishing and lookup roles in its region and us-east-1", () => {
    const role = roleNamed(templates[stage], githubRoleName(stage));

    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.Policies).toEqual([
      {
        PolicyName: 'AssumeCdkBootstrapRoles',
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'sts:AssumeRole',
              // The CDK sorts a merged statement's resources.
              Resource: deployRegions(stage)
                .flatMap((region) =>
                  bootstrapRoles(['deploy', 'file-publishing', 'lookup'], {
                    account: ENVIRONMENTS[stage].account,
                    region,
                  }),
                )
                .sort(),
            },
          ],
        },
      },
    ]);
  });

  it("is output as the stage's deploy role, and only in its own account's stack", () => {
    expect(Object.keys(templates[stage].findOutputs('*')).sort()).toEqual(
      [
        ACCOUNT_STACK_OUTPUTS.deployRoleArn(stage),
        ...(ROLLBACK_ON_FAILED_SMOKE.includes(stage)
          ? [ACCOUNT_STACK_OUTPUTS.rollbackRoleArn(stage)]
          : []),
        ACCOUNT_STACK_OUTPUTS.pullRequestRoleArn,
      ].sort(),
    );
    expect(
      templates[stage].findResources('AWS::IAM::Role', {
        Properties: { RoleName: githubRoleName(other) },
      }),
    ).toEqual({});
  });
});

describe.each(ROLLBACK_ON_FAILED_SMOKE)(
  "the %s rollback role, in its own account's stack",
  (stage) => {
    const role = () => roleNamed(templates[stage], githubRollbackRoleName(stage));
    const admitted = (sub: string) =>
      admits(role().AssumeRolePolicyDocument, providerRef(templates[stage]), claims(sub));

    it("admits only the repository's jobs in the stage's environment, as the deploy role", () => {
      expect(admitted(`repo:${REPOSITORY}:environment:${stage}`)).toBe(true);
      expect(admitted(`repo:${REPOSITORY}:pull_request`)).toBe(false);
      expect(admitted(`repo:${REPOSITORY}:ref:refs/heads/main`)).toBe(false);
      expect(admitted(`repo:octo-org/other:environment:${stage}`)).toBe(false);
    });

    it("may only make npm run rollback's calls, on the stage's own stack and functions", () => {
      const { account, region } = ENVIRONMENTS[stage];
      const arn = (service: string, name: string) =>
        `arn:aws:${service}:${region}:${account}:${name}`;
      const functions = arn('lambda', `function:petstore-${stage}-*`);

      expect(role().ManagedPolicyArns).toBeUndefined();
      expect(role().Policies).toHaveLength(1);
      expect(role().Policies[0].PolicyDocument.Statement).toEqual([
        {
          Effect: 'Allow',
          Action: ['cloudformation:DescribeStacks', 'cloudformation:ListStackResources'],
          Resource: arn('cloudformation', `stack/petstore-${stage}/*`),
        },
        {
          Effect: 'Allow',
          Action: ['codedeploy:ListDeployments', 'codedeploy:StopDeployment'],
          Resource: arn('codedeploy', 'deploymentgroup:*'),
        },
        {
          Effect: 'Allow',
          Action: ['lambda:GetAlias', 'lambda:ListVersionsByFunction', 'lambda:UpdateAlias'],
          Resource: [functions, `${functions}:*`],
        },
      ]);
    });
  },
);

describe.each(STAGES)("the pull-request role in the %s account's stack", (stage) => {
  const role = () => roleNamed(templates[stage], GITHUB_PULL_REQUEST_ROLE_NAME);
  const admitted = (sub: string, aud?: string) =>
    admits(role().AssumeRolePolicyDocument, providerRef(templates[stage]), claims(sub, aud));

  it("admits only the repository's pull-request jobs, with the STS audience", () => {
    expect(admitted(`repo:${REPOSITORY}:pull_request`)).toBe(true);
    expect(admitted('repo:octo-org/other:pull_request')).toBe(false);
    expect(admitted(`repo:${REPOSITORY}:ref:refs/heads/main`)).toBe(false);
    for (const each of STAGES)
      expect(admitted(`repo:${REPOSITORY}:environment:${each}`)).toBe(false);
    expect(admitted(`repo:${REPOSITORY}:pull_request`, 'sts.amazonaws.com.evil')).toBe(false);
  });

  it("may only assume the account's lookup roles, its region's and us-east-1's", () => {
    expect(role().ManagedPolicyArns).toBeUndefined();
    const lookups = deployRegions(stage).flatMap((region) =>
      bootstrapRoles(['lookup'], { account: ENVIRONMENTS[stage].account, region }),
    );
    expect(role().Policies?.[0]?.PolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Resource: lookups.length === 1 ? lookups[0] : lookups,
      },
    ]);
    expect(role().Policies).toHaveLength(1);
  });
});

/** The regions a stage's roles reach: its own and us-east-1 (its portal's edge stack). */
const deployRegions = (stage: StageName) => [
  ...new Set([ENVIRONMENTS[stage].region, CLOUDFRONT_WEB_ACL_REGION]),
];

describe('every GitHub role', () => {
  it('matches its subject exactly: StringEquals on sub and aud, no wildcard anywhere', () => {
    for (const template of Object.values(templates)) {
      const roles = template.findResources('AWS::IAM::Role', {
        Properties: {
          AssumeRolePolicyDocument: { Statement: [{ Action: 'sts:AssumeRoleWithWebIdentity' }] },
        },
      });
      expect(Object.keys(roles).length).toBeGreaterThanOrEqual(2);
      for (const { Properties } of Object.values(roles)) {
        const [statement, ...rest] = Properties.AssumeRolePolicyDocument.Statement;
        expect(rest).toEqual([]);
        expect(Object.keys(statement.Condition)).toEqual(['StringEquals']);
        const subject = statement.Condition.StringEquals[`${GITHUB_OIDC_ISSUER}:sub`];
        expect(subject).toMatch(/^repo:[^*?]+$/);
      }
    }
  });

  it("trusts GitHub's OIDC provider, created for the STS audience in each account", () => {
    for (const template of Object.values(templates)) {
      template.resourceCountIs('AWS::IAM::OIDCProvider', 1);
      template.hasResourceProperties('AWS::IAM::OIDCProvider', {
        Url: `https://${GITHUB_OIDC_ISSUER}`,
        ClientIdList: [GITHUB_OIDC_AUDIENCE],
      });
    }
  });
});

// Each test synthesizes a whole app of its own, its Control Tower checks included (cfn-guard):
// minutes on a busy machine beside other files.
describe('GitHub role options', { timeout: 300_000 }, () => {
  it("uses an account's existing provider by ARN and creates the other account's", () => {
    // GIVEN an existing provider in production's account only
    const existing = `arn:aws:iam::${ENVIRONMENTS.production.account}:oidc-provider/${GITHUB_OIDC_ISSUER}`;
    const app = deploymentApp({
      ...GITHUB_CONTEXT,
      ...environmentContext(),
      [APP_CONTEXT.githubOidcProviderArn]: existing,
    });

    // THEN production's roles federate with it and its stack creates none; staging's creates one
    const production = Template.fromStack(app.accountStacks.production);
    production.resourceCountIs('AWS::IAM::OIDCProvider', 0);
    const role = roleNamed(production, githubRoleName('production'));
    expect(
      admits(
        role.AssumeRolePolicyDocument,
        existing,
        claims(`repo:${REPOSITORY}:environment:production`),
      ),
    ).toBe(true);
    Template.fromStack(app.accountStacks.staging).resourceCountIs('AWS::IAM::OIDCProvider', 1);
  });

  it("names the bootstrap roles with the context's qualifier, which the stacks deploy through too", () => {
    const app = deploymentApp({
      ...GITHUB_CONTEXT,
      ...environmentContext(),
      [APP_CONTEXT.bootstrapQualifier]: 'pets2',
    });

    const role = roleNamed(
      Template.fromStack(app.accountStacks.staging),
      GITHUB_PULL_REQUEST_ROLE_NAME,
    );
    const { account, region } = ENVIRONMENTS.staging;
    expect(role.Policies[0].PolicyDocument.Statement[0].Resource).toEqual(
      [region, 'us-east-1'].map(
        (each) => `arn:aws:iam::${account}:role/cdk-pets2-lookup-role-${account}-${each}`,
      ),
    );
    const stage = app.app.synth().getStackArtifact(app.stacks.staging.artifactId);
    expect(stage.assumeRoleArn).toContain(':role/cdk-pets2-deploy-role-');
  });

  it("acknowledges each cdk-nag finding on the rollback role's ARNs, Refs and joins included", () => {
    // GIVEN the repository and no account or region: the ARNs hold AWS::Partition, ::AccountId…
    const app = deploymentApp(GITHUB_CONTEXT);
    const stack = app.accountStacks.production;
    const rollback = roleNamed(Template.fromStack(stack), githubRollbackRoleName('production'));
    expect(JSON.stringify(rollback.Policies)).toContain('{"Ref":"AWS::AccountId"}');

    // THEN AWS Solutions' IAM5 findings on its wildcards are each acknowledged by name
    expect(new AwsSolutionsChecks().validateScope(stack).violations).toEqual([]);
  });

  it('adds no provider, role or output without a repository', () => {
    const app = deploymentApp(environmentContext());

    for (const stage of STAGES) {
      const template = Template.fromStack(app.accountStacks[stage]);
      template.resourceCountIs('AWS::IAM::OIDCProvider', 0);
      template.resourceCountIs('AWS::IAM::Role', 1);
      expect(template.findOutputs('*')).toEqual({});
    }
  });
});
