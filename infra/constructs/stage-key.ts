/**
 * The stage's customer managed KMS key (its tables and log groups), and the key-policy statement
 * every KMS key of the stacks carries (Control Tower's ct-kms-pr-3).
 */
import { ArnFormat, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Effect, PolicyStatement, ServicePrincipal, StarPrincipal } from 'aws-cdk-lib/aws-iam';
import { type IKey, Key } from 'aws-cdk-lib/aws-kms';
import { LogGroup, type LogGroupProps, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../shared/logger.ts';
import type { StageName } from '../stages.ts';

/** Alias of a stage's key, e.g. `alias/petstore-production`. */
export function stageKeyAlias(stage: StageName): string {
  return `alias/${SERVICE_NAME}-${stage}`;
}

/**
 * Adds to `key`'s policy the statement of Control Tower's ct-kms-pr-3: deny `kms:CreateGrant` to
 * every principal unless the grant is for an AWS resource (`kms:GrantIsForAWSResource`, as
 * DynamoDB's grants for its tables are) or the caller is an AWS service (`aws:PrincipalIsAWSService`),
 * both with `BoolIfExists`. Nobody can then widen the key's use by a grant of their own.
 */
export function denyGrantsExceptForAwsResources(key: Key): void {
  key.addToResourcePolicy(
    new PolicyStatement({
      sid: 'DenyGrantsExceptForAwsResources',
      effect: Effect.DENY,
      principals: [new StarPrincipal()],
      actions: ['kms:CreateGrant'],
      resources: ['*'],
      conditions: {
        BoolIfExists: {
          'kms:GrantIsForAWSResource': 'false',
          'aws:PrincipalIsAWSService': 'false',
        },
      },
    }),
  );
}

/** Props of {@link StageKey}. */
export interface StageKeyProps {
  /** The stage the key serves; its alias names it ({@link stageKeyAlias}). */
  readonly stage: StageName;

  /** What happens to the key when the stack goes: the tables' policy (a key outlives its data). */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * One customer managed KMS key per stage (symmetric, yearly automatic rotation, alias
 * {@link stageKeyAlias}) that encrypts the stage's tables and log groups. Its policy: the
 * account's IAM policies decide who may use it (the CDK's default statement for the account
 * root), CloudWatch Logs of the stack's account and region may use it for the stack's log groups
 * only (the `aws:logs:arn` encryption context), and {@link denyGrantsExceptForAwsResources}.
 * Constructs that come later (more tables, log groups, a second API) encrypt with
 * `PetstoreStack.key` and need nothing more in the key policy: the logs statement covers every
 * log group of the account and region; a function reading a table of it needs `kms:Decrypt`
 * (DynamoDB checks its caller's access to the key) as `ServiceFunction` grants it.
 */
export class StageKey extends Construct {
  /** The key. */
  readonly key: Key;

  constructor(scope: Construct, id: string, props: StageKeyProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.key = new Key(this, 'Default', {
      description: `${stack.stackName}: encrypts the stage's tables and log groups`,
      alias: stageKeyAlias(props.stage),
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
    });
    // As AWS documents it for CloudWatch Logs: the service principal of the region, limited to log
    // groups of this account and region by the encryption context Logs always sends.
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'AllowLogGroupsOfThisAccountAndRegion',
        principals: [new ServicePrincipal(`logs.${stack.region}.amazonaws.com`)],
        actions: [
          'kms:Encrypt*',
          'kms:Decrypt*',
          'kms:ReEncrypt*',
          'kms:GenerateDataKey*',
          'kms:Describe*',
        ],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': stack.formatArn({
              service: 'logs',
              resource: 'log-group',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    denyGrantsExceptForAwsResources(this.key);
  }
}

/** How the stage keeps its logs: every log group of the stack is made from these. */
export interface StageLogs {
  /** The stage's key ({@link StageKey}), with which CloudWatch Logs encrypts the events. */
  readonly encryptionKey: IKey;

  /** Days the events are kept (`StageSettings.logRetentionDays`). */
  readonly retentionDays: number;

  /** What happens to the log group when the stack goes (the tables' policy). */
  readonly removalPolicy: RemovalPolicy;
}

/**
 * A log group of the stage: encrypted with its key, kept `logs.retentionDays` days.
 *
 * @param props Other settings, e.g. `logGroupName` for a group a service writes under a fixed name.
 */
export function stageLogGroup(
  scope: Construct,
  id: string,
  logs: StageLogs,
  props: Pick<LogGroupProps, 'logGroupName'> = {},
): LogGroup {
  return new LogGroup(scope, id, {
    ...props,
    encryptionKey: logs.encryptionKey,
    retention: logs.retentionDays as RetentionDays,
    removalPolicy: logs.removalPolicy,
  });
}
