/**
 * Keys in every region (issue 41, item 5): the admin functions of a stage of two regions, built by
 * their container from the settings a stage gives them, on DynamoDB Local's tables and API Gateway
 * mocked (it cannot run here) with one fake per region, told apart by each client's region. A
 * create, re-plan or revoke reaches both regions, a roll neither; a failure in the second region
 * undoes the first region's steps and writes no key and no audit entry.
 */

import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { regionalStackName } from '../../../infra/stages.ts';
import { DynamoDBAuditLog } from '../../../shared/dynamodb/audit-log.ts';
import { createDocumentClient } from '../../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../../shared/dynamodb/key-store.ts';
import { PLAN_IDS } from '../../../shared/plans.ts';
import { readSettings, requiredSetting } from '../../../shared/settings.ts';
import { everyKey } from '../../support/every-key.ts';
import { HOME, OTHER, STACKS, twoRegionKeyService } from '../../support/two-region-stage.ts';

const service = twoRegionKeyService();
const client = createDocumentClient();
const audit = DynamoDBAuditLog.from({ client, settings: readSettings() });
const keys = new DynamoDBKeyStore(
  client,
  requiredSetting(readSettings(), 'KEYS_TABLE_NAME'),
  audit,
);
const context = {
  actor: { type: 'iam', id: 'arn:aws:iam::111111111111:role/operator' },
  requestId: 'r-1',
} as const;

const apiGateway = mockClient(APIGatewayClient);

/** What one region's API Gateway holds: API keys by id (name, value) and usage plan keys. */
interface RegionState {
  readonly apiKeys: Map<string, { name: string; value: string; enabled: boolean }>;
  /** `usagePlanId/apiKeyId` */
  readonly planKeys: Set<string>;
}
let state: Record<string, RegionState>;
/** Each call as `region Command`, in order. */
let calls: string[];
/** The next call that fails (once), as `region Command`. */
let failNext: string | undefined;

/** The region of the client that sends a command. */
async function regionOf(getClient: () => APIGatewayClient): Promise<string> {
  return getClient().config.region();
}

/**
 * A fake API Gateway per region: the home stack's usage plans are `us-east-1-free`…; the other
 * region's are found by name (`<stack>-Free`…) with ids `us-west-2-free`….
 */
function fakeApiGateway() {
  apiGateway.reset();
  calls = [];
  failNext = undefined;
  state = Object.fromEntries(
    [HOME, OTHER].map((region) => [region, { apiKeys: new Map(), planKeys: new Set() }]),
  );
  const on = <I, O>(
    command: new (...args: never[]) => { readonly input: I },
    answer: (input: I, region: RegionState, name: string) => O,
  ) =>
    apiGateway.on(command as never).callsFake(async (input: I, getClient) => {
      const region = await regionOf(getClient as () => APIGatewayClient);
      const call = `${region} ${command.name}`;
      calls.push(call);
      if (failNext === call) {
        failNext = undefined;
        throw new Error(`${command.name} throttled in ${region}`);
      }
      return answer(input, state[region] as RegionState, region);
    });
  on(CreateApiKeyCommand, (input, region, name) => {
    const id = `${name}-apikey-${region.apiKeys.size + 1}`;
    region.apiKeys.set(id, { name: input.name ?? '', value: input.value ?? '', enabled: true });
    return { id };
  });
  on(DeleteApiKeyCommand, (input, region) => {
    region.apiKeys.delete(input.apiKey ?? '');
    for (const planKey of region.planKeys) {
      if (planKey.endsWith(`/${input.apiKey}`)) region.planKeys.delete(planKey);
    }
    return {};
  });
  on(GetApiKeysCommand, (input, region) => ({
    items: [...region.apiKeys]
      .filter(([, { name }]) => name.startsWith(input.nameQuery ?? ''))
      .map(([id, { name }]) => ({ id, name })),
  }));
  on(UpdateApiKeyCommand, (input, region) => {
    const key = region.apiKeys.get(input.apiKey ?? '');
    if (key) key.enabled = false;
    return {};
  });
  on(CreateUsagePlanKeyCommand, (input, region) => {
    // API Gateway puts an API key in one usage plan per API stage (one stage per region here).
    if ([...region.planKeys].some((planKey) => planKey.endsWith(`/${input.keyId}`))) {
      throw new Error(`API key ${input.keyId} is in a usage plan of this API stage already`);
    }
    region.planKeys.add(`${input.usagePlanId}/${input.keyId}`);
    return {};
  });
  on(DeleteUsagePlanKeyCommand, (input, region) => {
    region.planKeys.delete(`${input.usagePlanId}/${input.keyId}`);
    return {};
  });
  on(GetUsagePlansCommand, (input, region, name) => {
    const plans = PLAN_IDS.map((plan) => ({
      id: `${name}-${plan}`,
      name: `${STACKS[name]}-${plan[0]?.toUpperCase()}${plan.slice(1)}`,
      apiStages: [{ apiId: `api-${name}`, stage: 'v1' }],
    }));
    const holding = (id: string) => region.planKeys.has(`${id}/${input.keyId}`);
    return { items: input.keyId ? plans.filter(({ id }) => holding(id)) : plans };
  });
}

/** Each region's API keys as [region, value, enabled, usage plans]. */
function apiKeysEverywhere() {
  return Object.entries(state).flatMap(([region, { apiKeys, planKeys }]) =>
    [...apiKeys].map(([id, { value, enabled }]) => [
      region,
      value,
      enabled,
      [...planKeys].filter((planKey) => planKey.endsWith(`/${id}`)).map((k) => k.split('/')[0]),
    ]),
  );
}

beforeEach(() => fakeApiGateway());

describe('the admin API on a stage of two regions', () => {
  it('registers a new key with the same value in both regions, each in its own Free usage plan', async () => {
    const { key, apiGateway: steps } = await service.createKey({ plan: 'free' }, context);

    const stored = (await keys.tokensOf(key.keyId))?.current;
    expect(apiKeysEverywhere()).toEqual([
      [HOME, stored?.usageIdentifier, true, [`${HOME}-free`]],
      [OTHER, stored?.usageIdentifier, true, [`${OTHER}-free`]],
    ]);
    expect(steps).toEqual({
      regions: [HOME, OTHER],
      steps: [HOME, OTHER].flatMap((region) => [
        { region, step: 'createApiKey', outcome: 'done', apiKeyId: `${region}-apikey-1` },
        {
          region,
          step: 'addToUsagePlan',
          outcome: 'done',
          apiKeyId: `${region}-apikey-1`,
          usagePlanId: `${region}-free`,
        },
      ]),
    });
    expect((await audit.history(key.keyId)).map(({ event }) => event)).toEqual(['key.created']);
  });

  it('moves a key to another plan in both regions, and disables it in both on revoke', async () => {
    const { key } = await service.createKey({ plan: 'free' }, context);

    await service.setPlan(key.keyId, 'pro', undefined, context);
    expect(
      apiKeysEverywhere().map(([region, , enabled, plans]) => [region, enabled, plans]),
    ).toEqual([
      [HOME, true, [`${HOME}-pro`]],
      [OTHER, true, [`${OTHER}-pro`]],
    ]);

    const revoked = await service.revokeKey(key.keyId, context);
    expect(apiKeysEverywhere().map(([region, , enabled]) => [region, enabled])).toEqual([
      [HOME, false],
      [OTHER, false],
    ]);
    expect(revoked.apiGateway.steps).toEqual(
      [HOME, OTHER].map((region) => ({
        region,
        step: 'disableApiKey',
        outcome: 'done',
        apiKeyId: `${region}-apikey-1`,
      })),
    );
    expect((await audit.history(key.keyId)).map(({ event }) => event)).toEqual([
      'key.created',
      'key.plan_changed',
      'key.revoked',
    ]);
  });

  it('rolls a key without touching API Gateway in any region: the API keys stay as they are', async () => {
    const { key } = await service.createKey({ plan: 'free' }, context);
    const before = apiKeysEverywhere();
    calls = [];

    await service.rollKey(key.keyId, 0, context);

    expect(calls).toEqual([]);
    expect(apiKeysEverywhere()).toEqual(before);
  });

  it('undoes the home region when the second region refuses a new key: no key, no audit entry', async () => {
    failNext = `${OTHER} CreateUsagePlanKeyCommand`;
    const before = (await everyKey(keys)).length;

    await expect(service.createKey({ plan: 'free' }, context)).rejects.toThrow(
      `API Gateway refused the key (CreateUsagePlanKeyCommand throttled in ${OTHER}); undone: delete API Gateway API key ${OTHER}-apikey-1, delete API Gateway API key ${HOME}-apikey-1. No key was issued.`,
    );

    expect(apiKeysEverywhere()).toEqual([]);
    expect(Object.values(state).map(({ planKeys }) => planKeys.size)).toEqual([0, 0]);
    expect((await everyKey(keys)).length).toBe(before);
  });

  it('puts the home region back when the second region refuses a move: plan and history unchanged', async () => {
    const { key } = await service.createKey({ plan: 'free' }, context);
    const state0 = apiKeysEverywhere();
    failNext = `${OTHER} CreateUsagePlanKeyCommand`;

    await expect(service.setPlan(key.keyId, 'business', undefined, context)).rejects.toThrow(
      `API Gateway refused the move (CreateUsagePlanKeyCommand throttled in ${OTHER}); undone: put API Gateway API key ${OTHER}-apikey-1 back in usage plan ${OTHER}-free, remove API Gateway API key ${HOME}-apikey-1 from usage plan ${HOME}-business, put API Gateway API key ${HOME}-apikey-1 back in usage plan ${HOME}-free. Key ${key.keyId} stays on Free.`,
    );

    expect(apiKeysEverywhere()).toEqual(state0);
    expect((await keys.tokensOf(key.keyId))?.current?.plan).toBe('free');
    expect((await audit.history(key.keyId)).map(({ event }) => event)).toEqual(['key.created']);
  });

  it("looks the other region's usage plans up once per key service", async () => {
    const fresh = twoRegionKeyService();

    await fresh.createKey({ plan: 'free' }, context);
    await fresh.createKey({ plan: 'business' }, context);

    expect(calls.filter((call) => call === `${OTHER} GetUsagePlansCommand`)).toHaveLength(1);
    expect(calls.filter((call) => call === `${HOME} GetUsagePlansCommand`)).toEqual([]);
  });

  it("refuses a key when a region has no usage plans of its stack's name, undoing the home region", async () => {
    const wrong = regionalStackName('staging', 'eu-west-1');
    const misnamed = twoRegionKeyService({ PETSTORE_REGION_STACKS: `${STACKS[HOME]},${wrong}` });

    await expect(misnamed.createKey({ plan: 'free' }, context)).rejects.toThrow(
      `API Gateway refused the key (Stack ${wrong} has no usage plan ${wrong}-Free, ${wrong}-Pro, ${wrong}-Business in this region: nothing was changed.); undone: delete API Gateway API key ${HOME}-apikey-1. No key was issued.`,
    );
    expect(apiKeysEverywhere()).toEqual([]);
  });
});
