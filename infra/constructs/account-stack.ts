/**
 * The settings of one AWS account and region that no stage may own: API Gateway's CloudWatch
 * role, and in the account's first such stack the GitHub deploy roles.
 */
import { RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { GitHubRoles, type GitHubRolesProps } from './github-roles.ts';

/** Props of {@link AccountStack}. */
export interface AccountStackProps extends StackProps {
  /**
   * The GitHub OIDC provider and deploy roles of the account (see {@link GitHubRoles}).
   *
   * @default - none
   */
  readonly github?: GitHubRolesProps;
}

/**
 * The one `AWS::ApiGateway::Account` of an account and region, with its CloudWatch role; given
 * `github`, the account's {@link GitHubRoles}.
 *
 * API Gateway keeps a single CloudWatch role per account and region, and a stage cannot log
 * without it. Were it in `PetstoreStack`, staging and production deployed to one account would
 * each own the same setting and the second deployment would take it from the first, so it lives
 * here and is deployed once per account and region, before the first stage. The role is retained
 * when the stack is deleted, because the account setting outlives the stack. The GitHub roles
 * have fixed names and the OIDC provider is one per account, so the app gives `github` to one
 * account stack per account.
 */
export class AccountStack extends Stack {
  /** The GitHub roles, when `github` was given. */
  readonly github?: GitHubRoles;

  constructor(scope: Construct, id: string, props: AccountStackProps = {}) {
    super(scope, id, props);
    const role = new Role(this, 'CloudWatchRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [
        ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs'),
      ],
    });
    role.applyRemovalPolicy(RemovalPolicy.RETAIN);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The policy AWS documents for the API Gateway account role: API Gateway writes to log groups of every API in the account and region, which no narrower policy written here could name.',
    });
    new CfnAccount(this, 'Account', { cloudWatchRoleArn: role.roleArn });
    if (props.github) this.github = new GitHubRoles(this, 'GitHub', props.github);
  }
}
