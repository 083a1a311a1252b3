/**
 * The audit table's guards in the stack (docs/operations.md, "The audit trail"): its append-only
 * resource policy and the check of its retention.
 */
import { AnyPrincipal, Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';

/**
 * The audit table's resource policy: no principal, of this account or any other, may update or
 * delete an item (UpdateItem, DeleteItem, BatchWriteItem, PartiQL UPDATE/DELETE), whatever its own
 * IAM policy allows; an explicit Deny wins over every Allow. Entries are put if absent only
 * (shared/dynamodb/audit-log.ts), and only by the admin functions (their rows' PutItem); DynamoDB's
 * TTL deletes expired entries as the service itself, which the policy does not govern.
 * (`aws:PrincipalArn` cannot exempt anyone: the Deny names every principal.)
 */
export function appendOnlyPolicy(): PolicyDocument {
  return new PolicyDocument({
    statements: [
      new PolicyStatement({
        sid: 'AuditEntriesAreAppendOnly',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: [
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
          'dynamodb:PartiQLUpdate',
          'dynamodb:PartiQLDelete',
        ],
        resources: ['*'],
      }),
    ],
  });
}

/**
 * Checks the `auditRetentionDays` prop.
 * @throws Error unless it is a whole number from 1 to 3650.
 */
export function validRetention(days: number): number {
  if (!Number.isInteger(days) || days < 1 || days > 3_650) {
    throw new Error(`auditRetentionDays must be a whole number from 1 to 3650; got ${days}`);
  }
  return days;
}
