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

/** Production's hosted zone in {@link TWO_ACCOUNTS_CONTEXT}. */
export const ZONE = { hostedZoneId: 'Z0123456789ABCDEFGHIJ', zoneName: 'example.com' };

/** The portal's own certificate (us-east-1, production's account) in {@link TWO_ACCOUNTS_CONTEXT}. */
export const PORTAL_CERTIFICATE = `arn:aws:acm:us-east-1:${ENVIRONMENTS.production.account}:certificate/4b6c3f5e-2a1d-4e8f-9c0b-1d2e3f4a5b6c`;

const production = (option: Parameters<typeof contextKey>[1]) => contextKey('production', option);

/**
 * The app as operators shape it whole, unbundled: each stage in its own account (staging in
 * eu-west-1), the GitHub repository, production's custom domain in its hosted zone and every
 * portal setting (TOTP required, invitation only, mail through SES, a key limit of 3, an
 * Enterprise contact, the portal's own name). `synthesizedApp` builds it once per run for the
 * files that check such an app (deploy-targets, portal-settings, github-roles).
 */
export const TWO_ACCOUNTS_CONTEXT: Readonly<Record<string, unknown>> = {
  ...UNBUNDLED_CONTEXT,
  ...GITHUB_CONTEXT,
  ...environmentContext(),
  [production('domainName')]: 'api.example.com',
  [production('certificateArn')]:
    `arn:aws:acm:us-east-1:${ENVIRONMENTS.production.account}:certificate/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d`,
  [production('hostedZoneId')]: ZONE.hostedZoneId,
  [production('hostedZoneName')]: ZONE.zoneName,
  [production('portalMfaRequired')]: 'true',
  [production('portalInvitationOnly')]: 'true',
  [production('portalEmailFrom')]: 'portal@example.com',
  [production('portalKeyLimit')]: '3',
  [production('portalEnterpriseContactUrl')]: 'mailto:sales@example.com',
  [production('portalDomainName')]: 'portal.example.com',
  [production('portalCertificateArn')]: PORTAL_CERTIFICATE,
};

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
