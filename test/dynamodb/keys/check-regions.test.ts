/**
 * `npm run keys -- check <key-id> --stage S [--region R]` (issue 41, item 5): each region of a
 * stage of two regions reported against the keys table (the stage's admin API on this file's
 * tables), its stacks found through the home stack's `Regions` output (stage-stacks.ts) and API
 * Gateway mocked per region (told apart by each client's region): an API key missing, enabled
 * while the key is revoked, or in another plan's usage plan differs, with exit status 1.
 */
import { GetApiKeysCommand, GetUsagePlansCommand } from '@aws-sdk/client-api-gateway';
import { beforeEach, describe, expect, it } from 'vitest';
import { regionalStackName, STACK_OUTPUTS } from '../../../infra/stages.ts';
import * as stage from '../../support/keys-command.ts';

const { keysCommand, apiGateway, seedKey, service, TEST_CONTEXT } = stage;
const { home: HOME, other: OTHER } = stage.TWO_REGIONS;

/** What each region's API Gateway holds of the test's key: its API key and usage plan. */
let held: Record<string, { enabled: boolean; usagePlanId: string } | undefined>;

stage.useDeployedStage();
beforeEach(() => {
  stage.mockTwoRegionStacks([
    { OutputKey: STACK_OUTPUTS.adminApiBaseUrl, OutputValue: stage.adminApis.stage.url },
  ]);
  apiGateway.on(GetApiKeysCommand).callsFake(async ({ nameQuery }, getClient) => {
    const apiKey = held[await stage.clientRegion(getClient)];
    return { items: apiKey ? [{ id: `api-key-1`, name: nameQuery, enabled: apiKey.enabled }] : [] };
  });
  apiGateway.on(GetUsagePlansCommand).callsFake(async (_input, getClient) => {
    const apiKey = held[await stage.clientRegion(getClient)];
    return {
      items: apiKey ? [{ id: apiKey.usagePlanId, name: `plan ${apiKey.usagePlanId}` }] : [],
    };
  });
});

describe('keys check <key-id> on a stage of two regions', () => {
  it('reports each region as agreeing with the keys table, with exit status 0', async () => {
    const { record } = await seedKey({ plan: 'pro' });
    held = {
      [HOME]: { enabled: true, usagePlanId: `${HOME}-pro` },
      [OTHER]: { enabled: true, usagePlanId: `${OTHER}-pro` },
    };

    const { code, stdout } = await keysCommand(['check', record.keyId, '--stage', 'staging']);

    expect(stdout).toEqual([
      `Key ${record.keyId} in the keys table: Pro, not revoked.`,
      `  ${HOME}: API key api-key-1 enabled, in usage plan ${HOME}-pro (plan ${HOME}-pro)`,
      `  ${OTHER}: API key api-key-1 enabled, in usage plan ${OTHER}-pro (plan ${OTHER}-pro)`,
      `Every region checked (${HOME}, ${OTHER}) agrees.`,
    ]);
    expect(code).toBe(0);
  });

  it('names the region whose API key is still enabled after a revocation, or in the wrong usage plan', async () => {
    const { record } = await seedKey({ plan: 'pro' });
    await service.revokeKey(record.keyId, TEST_CONTEXT);
    held = {
      [HOME]: { enabled: false, usagePlanId: `${HOME}-pro` },
      [OTHER]: { enabled: true, usagePlanId: `${OTHER}-free` },
    };

    const { code, stdout, stderr } = await keysCommand([
      'check',
      record.keyId,
      '--stage',
      'staging',
    ]);

    expect(code).toBe(1);
    expect(stdout.slice(1)).toEqual([
      `  ${HOME}: API key api-key-1 disabled, in usage plan ${HOME}-pro (plan ${HOME}-pro)`,
      `  ${OTHER}: API key api-key-1 enabled, in usage plan ${OTHER}-free (plan ${OTHER}-free)`,
      `  ${OTHER}: DIFFERS: API key api-key-1 is enabled, and the key is revoked`,
      `  ${OTHER}: DIFFERS: API key api-key-1 is in usage plans ${OTHER}-free (plan ${OTHER}-free), not in Pro's of stack ${regionalStackName('staging', OTHER)}`,
    ]);
    expect(stderr).toEqual([
      `keys: Key ${record.keyId} differs from the keys table in ${OTHER}: see docs/operations.md, "Keys in every region", for the repair.`,
    ]);
  });

  it('checks one region with --region, and a region without the API key differs', async () => {
    const { record } = await seedKey({ plan: 'free' });
    held = { [HOME]: { enabled: true, usagePlanId: `${HOME}-free` }, [OTHER]: undefined };

    const other = await keysCommand([
      'check',
      record.keyId,
      '--stage',
      'staging',
      '--region',
      OTHER,
    ]);
    const home = await keysCommand(['check', record.keyId, '--stage', 'staging', '--region', HOME]);

    expect(other.code).toBe(1);
    expect(other.stdout.slice(1)).toEqual([
      `  ${OTHER}: DIFFERS: 0 API keys named ${record.keyId}, not one`,
    ]);
    expect(home.code).toBe(0);
    expect(home.stdout.at(-1)).toBe(`Every region checked (${HOME}) agrees.`);
  });

  it('refuses a region the stage does not have, and a key id without --stage', async () => {
    const { record } = await seedKey({ plan: 'free' });

    const elsewhere = await keysCommand([
      'check',
      record.keyId,
      '--stage',
      'staging',
      '--region',
      'eu-west-1',
    ]);
    const local = await keysCommand(['check', record.keyId]);

    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toEqual([
      'keys: eu-west-1 is not a region of staging, whose regions are us-east-1, us-west-2.',
    ]);
    expect(local.code).toBe(2);
    expect(local.stderr[0]).toBe(
      'keys: check <key-id> needs --stage: the local stack has no API Gateway API keys.',
    );
  });
});
