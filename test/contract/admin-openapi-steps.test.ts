/**
 * The admin API's answers on a stage of two regions against docs/admin-openapi.yaml: each change's
 * `apiGateway` states, in fields, the regions it reached and every step with its region, outcome
 * and ids, the failures after the stored change included (an old usage plan not deleted, an API
 * key not disabled), and conforms to the document. The admin functions are built by their
 * container from a stage's settings, on DynamoDB Local's tables; API Gateway is mocked (it cannot
 * run here), one fake per region.
 */
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteUsagePlanCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  UpdateApiKeyCommand,
  UpdateUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { PLAN_IDS } from '../../shared/plans.ts';
import { conformingAnswers } from '../support/admin-openapi.ts';
import { seedKey } from '../support/test-keys.ts';
import { HOME, OTHER, STACKS, twoRegionKeyService } from '../support/two-region-stage.ts';

/** The admin functions of staging in two regions, on this file's tables. */
const conforming = conformingAnswers(twoRegionKeyService());

const apiGateway = mockClient(APIGatewayClient);

/** Each region's API keys (id → name) and the usage plans (id, name) each API key is in. */
let apiKeys: Map<string, Map<string, string>>;
let usagePlansOf: Map<string, { id: string; name: string }[]>;

/** A fake API Gateway per region; `OTHER` refuses to delete a usage plan or disable an API key. */
function fakeApiGateway(): void {
  apiGateway.reset();
  apiKeys = new Map([HOME, OTHER].map((region) => [region, new Map()]));
  usagePlansOf = new Map();
  const on = <I, O>(
    command: new (...args: never[]) => { readonly input: I },
    answer: (input: I, region: string) => O,
  ) =>
    apiGateway.on(command as never).callsFake(async (input: I, getClient) => {
      const region = await (getClient as () => APIGatewayClient)().config.region();
      return answer(input, region);
    });
  on(CreateApiKeyCommand, ({ name = '' }, region) => {
    const id = `${region}-apikey-${name}`;
    apiKeys.get(region)?.set(id, name);
    return { id };
  });
  on(GetApiKeysCommand, ({ nameQuery = '' }, region) => ({
    items: [...(apiKeys.get(region) ?? [])]
      .filter(([, name]) => name === nameQuery)
      .map(([id, name]) => ({ id, name })),
  }));
  on(CreateUsagePlanCommand, (_input, region) => ({ id: `${region}-own` }));
  on(UpdateUsagePlanCommand, () => ({}));
  on(CreateUsagePlanKeyCommand, ({ usagePlanId = '', keyId = '' }) => {
    usagePlansOf.set(keyId, [...(usagePlansOf.get(keyId) ?? []), { id: usagePlanId, name: '' }]);
    return {};
  });
  on(DeleteUsagePlanKeyCommand, ({ usagePlanId, keyId = '' }) => {
    usagePlansOf.set(
      keyId,
      (usagePlansOf.get(keyId) ?? []).filter(({ id }) => id !== usagePlanId),
    );
    return {};
  });
  on(GetUsagePlansCommand, ({ keyId }, region) => ({
    items: keyId
      ? (usagePlansOf.get(keyId) ?? []).map(({ id }) => ({
          id,
          name: id.endsWith('-own') ? `${STACKS[region]}-enterprise-${apiKeyName(keyId)}` : id,
        }))
      : PLAN_IDS.map((plan) => ({
          id: `${region}-${plan}`,
          name: `${STACKS[region]}-${plan[0]?.toUpperCase()}${plan.slice(1)}`,
          apiStages: [{ apiId: `api-${region}`, stage: 'v1' }],
        })),
  }));
  on(DeleteUsagePlanCommand, (_input, region) => {
    if (region === OTHER) throw refused('ConflictException', 'Usage plan has API stages');
    return {};
  });
  on(UpdateApiKeyCommand, (_input, region) => {
    if (region === OTHER) throw refused('TooManyRequestsException', 'Rate exceeded');
    return {};
  });
}

/** The key id an API key is named after. */
function apiKeyName(apiKeyId: string): string {
  return apiKeyId.slice(apiKeyId.indexOf('-apikey-') + '-apikey-'.length);
}

/** An error as API Gateway's client throws it. */
function refused(name: string, message: string): Error {
  return Object.assign(new Error(message), { name });
}

beforeEach(() => fakeApiGateway());

describe("the admin API's answers on a stage of two regions", () => {
  it('state each region’s steps with their ids, and the failures after the stored change', async () => {
    const created = await conforming('createKey', {
      body: { plan: 'enterprise', limits: { perMinute: 10, perDay: 100 } },
    });
    const keyId = created.body.key.keyId as string;
    const apiKey = (region: string) => `${region}-apikey-${keyId}`;
    const regions = [HOME, OTHER];

    const relimited = await conforming('setKeyPlan', {
      keyId,
      body: { plan: 'enterprise', limits: { perMinute: 20, perDay: 200 } },
    });
    const toPro = await conforming('setKeyPlan', { keyId, body: { plan: 'pro' } });
    const expiry = await conforming('setKeyExpiry', { keyId, body: { expiresAt: null } });
    const revoked = await conforming('revokeKey', { keyId, body: {} });

    expect(created.body.apiGateway).toEqual({
      regions,
      steps: regions.flatMap((region) => [
        { region, step: 'createApiKey', outcome: 'done', apiKeyId: apiKey(region) },
        {
          region,
          step: 'createUsagePlan',
          outcome: 'done',
          usagePlanId: `${region}-own`,
          usagePlanName: `${STACKS[region]}-enterprise-${keyId}`,
        },
        {
          region,
          step: 'addToUsagePlan',
          outcome: 'done',
          apiKeyId: apiKey(region),
          usagePlanId: `${region}-own`,
        },
      ]),
    });
    expect(relimited.body.apiGateway).toEqual({
      regions,
      steps: regions.map((region) => ({
        region,
        step: 'updateUsagePlan',
        outcome: 'done',
        usagePlanId: `${region}-own`,
      })),
    });
    expect(toPro.body.apiGateway).toEqual({
      regions,
      steps: [
        ...regions.flatMap((region) => [
          {
            region,
            step: 'removeFromUsagePlan',
            outcome: 'done',
            apiKeyId: apiKey(region),
            usagePlanId: `${region}-own`,
          },
          {
            region,
            step: 'addToUsagePlan',
            outcome: 'done',
            apiKeyId: apiKey(region),
            usagePlanId: `${region}-pro`,
          },
        ]),
        { region: HOME, step: 'deleteUsagePlan', outcome: 'done', usagePlanId: `${HOME}-own` },
        {
          region: OTHER,
          step: 'deleteUsagePlan',
          outcome: 'failed',
          usagePlanId: `${OTHER}-own`,
          error: { code: 'ConflictException', message: 'Usage plan has API stages' },
        },
      ],
    });
    expect(expiry.body.apiGateway).toEqual({ regions: [], steps: [] });
    expect(revoked.body.apiGateway).toEqual({
      regions,
      steps: [
        { region: HOME, step: 'disableApiKey', outcome: 'done', apiKeyId: apiKey(HOME) },
        {
          region: OTHER,
          step: 'disableApiKey',
          outcome: 'failed',
          apiKeyId: apiKey(OTHER),
          error: { code: 'TooManyRequestsException', message: 'Rate exceeded' },
        },
      ],
    });
  });

  it('state a revoked key without API keys as notFound in each region', async () => {
    // Seeded straight into the keys table: no API key in any region.
    const { record } = await seedKey({ plan: 'free' });

    const revoked = await conforming('revokeKey', { keyId: record.keyId, body: {} });

    expect(revoked.body.apiGateway).toEqual({
      regions: [HOME, OTHER],
      steps: [HOME, OTHER].map((region) => ({
        region,
        step: 'disableApiKey',
        outcome: 'notFound',
      })),
    });
  });
});
