/**
 * The IAM roles through which GitHub Actions jobs of one repository deploy, with OpenID Connect
 * and no long-lived keys (docs/operations.md, "GitHub roles").
 */
import { CfnOutput, Stack, Validations } from 'aws-cdk-lib';
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
  githubRollbackRoleName,
  ROLLBACK_ON_FAILED_SMOKE,
  regionalStackName,
  type StageName,
  stackName,
} from '../stages.ts';
import { CLOUDFRONT_WEB_ACL_REGION } from './portal-edge-stack.ts';

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
   * The stages that deploy into this construct's account, each with its regions, the home region
   * first (`stageRegions`: `petstore:<stage>:regions`).
   *
   * @default regions - the stack's region alone
   */
  readonly stages: readonly { readonly stage: StageName; readonly regions?: readonly string[] }[];
}

/**
 * In one AWS account: GitHub's OIDC provider (or the existing one), a deploy role per stage given,
 * `githubRoleName(stage)`, a rollback role per stage given that rolls back after a failed smoke
 * test (`ROLLBACK_ON_FAILED_SMOKE`), `githubRollbackRoleName(stage)`, and the pull-request role,
 * `GITHUB_PULL_REQUEST_ROLE_NAME`; their ARNs are stack outputs (`ACCOUNT_STACK_OUTPUTS`).
 *
 * A stage's roles trust only tokens whose `sub` is `repo:OWNER/REPO:environment:<stage>` (a job
 * of that GitHub environment, which production guards with required reviewers) and whose `aud` is
 * `sts.amazonaws.com`. The deploy role may only assume the stage's CDK bootstrap roles (deploy,
 * file-publishing, lookup) in each of its regions and in us-east-1 (the portal's edge stack):
 * what it may change is what `cdk deploy` may.
 * The rollback role may only make `npm run rollback`'s calls on the stage's own stack, deployment
 * groups and functions in each of its regions (`petstore-<stage>` at home,
 * `petstore-<stage>-<region>` elsewhere). The pull-request role trusts `repo:OWNER/REPO:pull_request` and may
 * assume only the lookup roles (read-only) of those regions, for `cdk diff`. Role names are fixed, so there is one
 * construct per account.
 */
export class GitHubRoles extends Construct {
  /** The OIDC provider the roles trust. */
  readonly provider: IOidcProvider;

  /** Each given stage's deploy role. */
  readonly stageRoles: ReadonlyMap<StageName, Role>;

  /** The rollback role of each given stage in `ROLLBACK_ON_FAILED_SMOKE`. */
  readonly rollbackRoles: ReadonlyMap<StageName, Role>;

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
    const bootstrapRoleArn = (kind: string, region: string) =>
      stack.formatArn({
        service: 'iam',
        region: '',
        resource: 'role',
        resourceName: `cdk-${props.qualifier}-${kind}-role-${stack.account}-${region}`,
      });
    // A stage also deploys its portal's edge stack, in us-east-1 whatever its regions.
    const deployRegions = (regions: readonly string[]) => [
      ...new Set([...regions, CLOUDFRONT_WEB_ACL_REGION]),
    ];
    this.stageRoles = new Map(
      props.stages.map(({ stage, regions = [stack.region] }) => {
        const role = this.role(githubRoleName(stage), `${props.repository}:environment:${stage}`, {
          AssumeCdkBootstrapRoles: [
            assumeRoles(
              deployRegions(regions).flatMap((region) =>
                DEPLOY_BOOTSTRAP_ROLES.map((kind) => bootstrapRoleArn(kind, region)),
              ),
            ),
          ],
        });
        new CfnOutput(stack, ACCOUNT_STACK_OUTPUTS.deployRoleArn(stage), { value: role.roleArn });
        return [stage, role];
      }),
    );
    const rollingBack = props.stages.filter(({ stage }) =>
      ROLLBACK_ON_FAILED_SMOKE.includes(stage),
    );
    this.rollbackRoles = new Map(
      rollingBack.map(({ stage, regions = [stack.region] }) => {
        // Each region's stack is its own: petstore-<stage> at home, petstore-<stage>-<region>.
        const inEach = (service: string, resourceName: (stack: string) => string) =>
          regions.map(
            (region, index) =>
              `arn:${stack.partition}:${service}:${region}:${stack.account}:${resourceName(
                index === 0 ? stackName(stage) : regionalStackName(stage, region),
              )}`,
          );
        const functions = inEach('lambda', (name) => `function:${name}-*`);
        const statements = [
          new PolicyStatement({
            actions: ['cloudformation:DescribeStacks', 'cloudformation:ListStackResources'],
            resources: inEach('cloudformation', (name) => `stack/${name}/*`),
          }),
          new PolicyStatement({
            actions: ['codedeploy:ListDeployments', 'codedeploy:StopDeployment'],
            resources: inEach('codedeploy', () => 'deploymentgroup:*'),
          }),
          new PolicyStatement({
            actions: ['lambda:GetAlias', 'lambda:ListVersionsByFunction', 'lambda:UpdateAlias'],
            resources: functions.flatMap((each) => [each, `${each}:*`]),
          }),
        ];
        const role = this.role(
          githubRollbackRoleName(stage),
          `${props.repository}:environment:${stage}`,
          { RollBackStage: statements },
        );
        for (const resource of statements.flatMap((statement) => statement.resources)) {
          Validations.of(role).acknowledge({
            id: `AwsSolutions-IAM5[Resource::${findingResource(stack, resource)}]`,
            reason:
              "The rollback's calls on the stage's own resources, named by what can be known before they exist: the stack's id ends its ARN, CloudFormation generates the names of its functions (prefixed with the stack's name) and deployment groups, and an alias is a qualifier of its function's ARN.",
          });
        }
        new CfnOutput(stack, ACCOUNT_STACK_OUTPUTS.rollbackRoleArn(stage), {
          value: role.roleArn,
        });
        return [stage, role];
      }),
    );
    this.pullRequestRole = this.role(
      GITHUB_PULL_REQUEST_ROLE_NAME,
      `${props.repository}:pull_request`,
      {
        AssumeCdkBootstrapRoles: [
          assumeRoles([
            ...new Set(
              props.stages.flatMap(({ regions = [stack.region] }) =>
                deployRegions(regions).map((region) => bootstrapRoleArn('lookup', region)),
              ),
            ),
          ]),
        ],
      },
    );
    new CfnOutput(stack, ACCOUNT_STACK_OUTPUTS.pullRequestRoleArn, {
      value: this.pullRequestRole.roleArn,
    });
  }

  /**
   * A role that tokens with `sub` `repo:<subject>` and the STS audience may assume, allowed only
   * `policies` (inline policy name → its statements).
   */
  private role(
    roleName: string,
    subject: string,
    policies: Record<string, PolicyStatement[]>,
  ): Role {
    return new Role(this, roleName, {
      roleName,
      description: `GitHub Actions jobs of repo:${subject}; may do only what its inline policy names`,
      assumedBy: new OpenIdConnectPrincipal(this.provider, {
        StringEquals: {
          [`${GITHUB_OIDC_ISSUER}:aud`]: GITHUB_OIDC_AUDIENCE,
          [`${GITHUB_OIDC_ISSUER}:sub`]: `repo:${subject}`,
        },
      }),
      inlinePolicies: Object.fromEntries(
        Object.entries(policies).map(([name, statements]) => [
          name,
          new PolicyDocument({ statements }),
        ]),
      ),
    });
  }
}

/** A statement allowing `sts:AssumeRole` on `roles` and nothing else. */
function assumeRoles(roles: string[]): PolicyStatement {
  return new PolicyStatement({ actions: ['sts:AssumeRole'], resources: roles });
}

/**
 * A policy resource as cdk-nag's findings name it (cdk-nag README, "Suppressing a rule": tokens
 * in angle brackets, e.g. `arn:<AWS::Partition>:lambda:us-east-1:<AWS::AccountId>:function:x-*`):
 * the resolved value with each `Ref` as `<name>` and each `Fn::Join` joined. cdk-nag exports its
 * own flattening only from an internal path (`lib/utils`), so the acknowledgement's id is built
 * here for what these ARNs hold: strings, `Ref`s and `Fn::Join`s.
 */
function findingResource(stack: Stack, resource: string): string {
  const visit = (node: unknown): string => {
    if (typeof node === 'string') return node;
    const { Ref: ref, 'Fn::Join': join } = node as {
      Ref?: string;
      'Fn::Join'?: [string, unknown[]];
    };
    if (ref !== undefined) return `<${ref}>`;
    if (join !== undefined) return join[1].map(visit).join(join[0]);
    return JSON.stringify(node);
  };
  return visit(stack.resolve(resource));
}
