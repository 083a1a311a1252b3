/**
 * The context of the region tests' apps (issue 41): cdk.json's, both stages in one account with
 * us-east-1 as their home region, the functions unbundled (these tests read templates, not code:
 * the bundles are those of cdk.json's app, test/infra/stack-edge-and-bundles.test.ts); and a
 * template's resources of a type, with their logical ids.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import { UNBUNDLED_CONTEXT } from './deployment-app.ts';

export const ACCOUNT = '111111111111';
export const HOME = 'us-east-1';
export const OTHER = 'us-west-2';

/** The context of the app under test: cdk.json's, and each stage's account and region(s). */
export function context(extra: Record<string, string> = {}): Record<string, unknown> {
  return {
    ...UNBUNDLED_CONTEXT,
    'petstore:production:account': ACCOUNT,
    'petstore:staging:account': ACCOUNT,
    'petstore:staging:region': HOME,
    'petstore:production:region': HOME,
    ...extra,
  };
}

/** A resource of a template, as `Template.toJSON()` and `findResources` give it. */
export type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
};

/** The resources of `type` in `template`, as [logical id, resource] pairs. */
export const resourcesOf = (template: Template, type: string) =>
  Object.entries(template.findResources(type)) as [string, Resource][];
