/**
 * Control Tower's Guard rules run over a template the test holds (test/infra/control-tower.test.ts):
 * which controls it breaks, on which resources, and the breaches that change a template to break
 * one. The synthesized app's own checks are test/support/guard-once.ts's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';

/** A template as Guard reads it. */
export type CfnTemplate = {
  Resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;
};

/** Where Guard reports a check on the template rather than on a resource (ct-kms-pr-3 does). */
export const NO_RESOURCE = '(no resource)';

/**
 * The controls (e.g. `ct-kms-pr-3`, `ct-s3-pr-10`) that `template` breaks, by the logical id of
 * each resource (or {@link NO_RESOURCE}); `template` is written into `directory` for Guard.
 */
export function brokenControls(
  directory: string,
  template: CfnTemplate,
  rules = new CfnGuardValidator(),
): Map<string, string[]> {
  const path = join(directory, `checked-${Math.random().toString(36).slice(2)}.template.json`);
  writeFileSync(path, JSON.stringify(template));
  const report = rules.validate({ templatePaths: [path] } as never);
  const broken = new Map<string, Set<string>>();
  for (const { description, violatingResources } of report.violations) {
    const [, service, number] = /\[CT\.([A-Z0-9]+)\.PR\.(\d+)\]/.exec(description) ?? [];
    for (const { resourceLogicalId = NO_RESOURCE } of violatingResources) {
      const controls = broken.get(resourceLogicalId) ?? new Set();
      broken.set(resourceLogicalId, controls.add(`ct-${service?.toLowerCase()}-pr-${number}`));
    }
  }
  return new Map([...broken].map(([id, controls]) => [id, [...controls].sort()]));
}

/** The controls that `template` breaks, on whichever resources. */
export const controlsBroken = (
  directory: string,
  template: CfnTemplate,
  rules?: CfnGuardValidator,
) => [...new Set([...brokenControls(directory, template, rules).values()].flat())].sort();

/** The resources of `template` of `type`, with their logical ids. */
export const resourcesOf = (template: CfnTemplate, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/**
 * A copy of the resource of `type` whose logical id starts with `prefix` (the portal's bucket or
 * distribution), added to `template` as `id` after `change`: a resource of the breach's own.
 */
function breakCopy(
  template: CfnTemplate,
  type: string,
  prefix: string,
  id: string,
  change: (properties: Record<string, unknown>) => void,
): string[] {
  const [, resource] =
    resourcesOf(template, type).find(([logicalId]) => logicalId.startsWith(prefix)) ?? [];
  if (!resource) throw new Error(`No ${type} ${prefix}… in the template`);
  const copy = structuredClone(resource);
  change(copy.Properties);
  template.Resources[id] = copy;
  return [id];
}

/** A copy of the portal's bucket, broken by `change`. */
export const breakBucket =
  (id: string, change: (properties: Record<string, unknown>) => void) => (template: CfnTemplate) =>
    breakCopy(template, 'AWS::S3::Bucket', 'PortalSiteBucket', id, change);

/** A copy of the portal's distribution, its configuration broken by `change`. */
export const breakDistribution =
  (id: string, change: (config: Record<string, unknown>) => void) => (template: CfnTemplate) =>
    breakCopy(template, 'AWS::CloudFront::Distribution', 'PortalSiteDistribution', id, (p) =>
      change(p.DistributionConfig as Record<string, unknown>),
    );
