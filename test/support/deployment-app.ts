/**
 * The Petstore app as operators shape it through the CDK context (accounts, regions, domains,
 * the GitHub repository), for the tests of where and how the stages deploy. The functions are
 * not bundled (`aws:cdk:bundling-stacks` empty): these tests read templates, not code, and each
 * app is then built in well under a second.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { afterAll } from 'vitest';
import cdkJson from '../../cdk.json' with { type: 'json' };
import { createPetstoreApp, type PetstoreApp } from '../../infra/app.ts';
import { APP_CONTEXT, contextKey, type StageName } from '../../infra/stages.ts';

/** The sample repository whose workflows deploy. */
export const REPOSITORY = 'octo-org/petstore';

/** A sample account and region per stage: each stage in its own. */
export const ENVIRONMENTS: Readonly<Record<StageName, { account: string; region: string }>> = {
  staging: { account: '111111111111', region: 'eu-west-1' },
  production: { account: '222222222222', region: 'us-east-1' },
};

/** The context keys that put each stage in `environments`' account and region. */
export function environmentContext(
  environments: Readonly<Record<StageName, { account: string; region: string }>> = ENVIRONMENTS,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(environments).flatMap(([stage, { account, region }]) => [
      [contextKey(stage as StageName, 'account'), account],
      [contextKey(stage as StageName, 'region'), region],
    ]),
  );
}

/** cdk.json's context with the functions unbundled, for tests that read templates, not code. */
export const UNBUNDLED_CONTEXT: Readonly<Record<string, unknown>> = {
  ...cdkJson.context,
  [BUNDLING_STACKS]: [],
};

/** The context key naming {@link REPOSITORY}. */
export const GITHUB_CONTEXT = { [APP_CONTEXT.github]: REPOSITORY };

const outdirs: string[] = [];
afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

/**
 * Builds the app with cdk.json's feature flags and `context`, functions unbundled, into a
 * temporary directory removed after the test file.
 *
 * @throws The app's own Error when a context value is refused.
 */
export function deploymentApp(context: Record<string, string>): PetstoreApp {
  const outdir = mkdtempSync(join(tmpdir(), 'petstore-cdk-deploy-'));
  outdirs.push(outdir);
  return createPetstoreApp({
    context: { ...UNBUNDLED_CONTEXT, ...context },
    outdir,
  });
}
