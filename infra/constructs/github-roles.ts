/**
 * The IAM roles through which GitHub Actions jobs of one repository deploy, with OpenID Connect
 * and no long-lived keys (docs/operations.md, "GitHub roles").
 */
import { CfnOutput, Stack } from 'aws-cdk-lib';
import {
  type IOidcProvider,
  OidcProviderNative,
  OpenIdConnectPrincipal,
  PolicyDocument,
  PolicyStatement,
  Role,
} from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import {
  ACCOUNT_STACK_OUTPUTS,
  GITHUB_PULL_REQUEST_ROLE_NAME,
  githubRoleName,
  type StageName,
} from '../stages.ts';

/** The issuer of GitHub Actions' OIDC tokens: the prefix of their claims' condition keys. */
export const GITHUB_OIDC_ISSUER = 'token.actions.githubusercontent.com';

/** The audience `aws-actions/configure-aws-credentials` asks GitHub's tokens for. */
export const GITHUB_OIDC_AUDIENCE = 'sts.amazonaws.com';

/**
 * SHA-1 thumbprints of GitHub's OIDC certificate chains, as GitHub publishes them. IAM no longer
 * checks them for this issuer (it trusts its own CA library), but the resource needs one.
 */
const GITHUB_THUMBPRINTS = [
  '6938fd4d98bab03faadb97b34396831e3780aea1',
  '1c58a3a8518e8759bf075b76b750d4f2df264fcd',
];

/** The CDK bootstrap roles a deploy assumes: `cdk-<qualifier>-<kind>-role-<account>-<region>`. */
const DEPLOY_BOOTSTRAP_ROLES = ['deploy', 'file-publishing', 'lookup'] as const;

/** Props of {@link GitHubRoles}. */
export interface GitHubRolesProps {
  /** The repository, `OWNER/REPO`, whose workflow jobs may assume the roles. */
  readonly repository: string;
  /**
   * ARN of the account's existing `token.actions.githubusercontent.com` provider.
   *
   * @default - a provider is created (an account holds at most one per issuer)
   */
  readonly oidcProviderArn?: string;
  /** The CDK bootstrap qualifier of the account's bootstrap roles, e.g. `hnb659fds`. */
  readonly qualifier: string;
  /**
   * The stages that deploy into this construct's account, each with its region.
   *
   * @default region - the stack's region
   */
  readonly stages: readonly { readonly stage: StageName; readonly region?: string }[];
}

/**
 * In one AWS account: GitHub's OIDC provider (or the existing one), one role per stage given,
 * `githubRoleName(stage)`, and the pull-request role, `GITHUB_PULL_REQUEST_ROLE_NAME`; their ARNs
 * are stack outputs (`ACCOUNT_STACK_OUTPUTS`).
 *
 * A stage's role trusts only tokens whose `sub` is `repo:OWNER/REPO:environment:<stage>` (a job
 * of that GitHub environment, which production guards with required reviewers) and whose `aud` is
 * `sts.amazonaws.com`, and may only assume the stage's CDK bootstrap roles (deploy,
 * file-publishing, lookup) in its region: what it may change is what `cdk deploy` may. The
 * pull-request role trusts `repo:OWNER/REPO:pull_request` and may assume only the lookup roles
 * (read-only), for `cdk diff`. Role names are fixed, so there is one construct per account.
 */
export class GitHubRoles extends Construct {
  /** The OIDC provider the roles trust. */
  readonly provider: IOidcProvider;

  /** Each given stage's role. */
  readonly stageRoles: ReadonlyMap<StageName, Role>;

  /** The pull-request role. */
  readonly pullRequestRole: Role;

  constructor(scope: Construct, id: string, props: GitHubRolesProps) {
    super(scope, id);
    this.provider = props.oidcProviderArn
      ? OidcProviderNative.fromOidcProviderArn(this, 'Provider', props.oidcProviderArn)
      : new OidcProviderNative(this, 'Provider', {
          url: `https://${GITHUB_OIDC_ISSUER}`,
          clientIds: [GITHUB_OIDC_AUDIENCE],
          thumbprints: GITHUB_THUMBPRINTS,
        });
    const stack = Stack.of(this);
    const bootstrapRoleArn = (kind: string, region = stack.region) =>
      stack.formatArn({
        service: 'iam',
        region: '',
        resource: 'role',
        resourceName: `cdk-${props.qualifier}-${kind}-role-${stack.account}-${region}`,
      });
    this.stageRoles = new Map(
      props.stages.map(({ stage, region }) => {
        const role = this.role(
          githubRoleName(stage),
          `${props.repository}:environment:${stage}`,
          DEPLOY_BOOTSTRAP_ROLES.map((kind) => bootstrapRoleArn(kind, region)),
        );
        new CfnOutput(stack, ACCOUNT_STACK_OUTPUTS.deployRoleArn(stage), { value: role.roleArn });
        return [stage, role];
      }),
    );
    this.pullRequestRole = this.role(
      GITHUB_PULL_REQUEST_ROLE_NAME,
      `${props.repository}:pull_request`,
      [...new Set(props.stages.map(({ region }) => bootstrapRoleArn('lookup', region)))],
    );
    new CfnOutput(stack, ACCOUNT_STACK_OUTPUTS.pullRequestRoleArn, {
      value: this.pullRequestRole.roleArn,
    });
  }

  /**
   * A role that tokens with `sub` `repo:<subject>` and the STS audience may assume, allowed only
   * `sts:AssumeRole` on `bootstrapRoles`.
   */
  private role(roleName: string, subject: string, bootstrapRoles: string[]): Role {
    return new Role(this, roleName, {
      roleName,
      description: `GitHub Actions jobs of repo:${subject}; may assume only the CDK bootstrap roles it names`,
      assumedBy: new OpenIdConnectPrincipal(this.provider, {
        StringEquals: {
          [`${GITHUB_OIDC_ISSUER}:aud`]: GITHUB_OIDC_AUDIENCE,
          [`${GITHUB_OIDC_ISSUER}:sub`]: `repo:${subject}`,
        },
      }),
      inlinePolicies: {
        AssumeCdkBootstrapRoles: new PolicyDocument({
          statements: [
            new PolicyStatement({ actions: ['sts:AssumeRole'], resources: bootstrapRoles }),
          ],
        }),
      },
    });
  }
}
