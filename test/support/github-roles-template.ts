/**
 * Reading the GitHub deploy roles (infra/constructs/github-roles.ts) out of an account stack's
 * template: a role by its physical name, and the ARNs of the CDK bootstrap roles it may assume.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';

/** A role of an account stack's template, by its physical name. */
export function roleNamed(template: Template, roleName: string) {
  const roles = Object.values(
    template.findResources('AWS::IAM::Role', { Properties: { RoleName: roleName } }),
  );
  expect(roles, roleName).toHaveLength(1);
  return roles[0]?.Properties;
}

/** The ARNs of the CDK bootstrap roles `kinds` of an account and region, default qualifier. */
export function bootstrapRoles(
  kinds: string[],
  { account, region }: { account: string; region: string },
) {
  return kinds.map(
    (kind) => `arn:aws:iam::${account}:role/cdk-hnb659fds-${kind}-role-${account}-${region}`,
  );
}
