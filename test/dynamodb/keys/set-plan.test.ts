import {
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteUsagePlanCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  UpdateUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { describe, expect, it } from 'vitest';
import {
  apiGateway,
  apiGatewayCalls,
  enterpriseKey,
  keys,
  keysCommand,
  ownPlanName,
  restApiId,
  seedKey,
  service,
  storedItem,
  TEST_CONTEXT,
  usagePlanId,
  useDeployedStage,
} from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it('moves a key from a standard plan to Enterprise, to new limits, and back', async () => {
    const { record, token } = await seedKey({ plan: 'free' });

    const toEnterprise = await keysCommand([
      'set-plan',
      record.keyId,
      '--plan',
      'enterprise',
      '--per-minute',
      '1000',
      '--per-day',
      '50000',
    ]);
    expect(toEnterprise.code).toBe(0);
    expect(await keys.findByToken(token)).toMatchObject({
      plan: 'enterprise',
      perMinute: 1_000,
      perDay: 50_000,
    });
    expect(toEnterprise.stdout).toEqual([
      expect.stringMatching(new RegExp(`^Moved key ${record.keyId} on the local stack `)),
      '  from: Free (60 requests/minute, 1,000 requests/day)',
      '  to:   Enterprise (1,000 requests/minute, 50,000 requests/day)',
      "Requests with the key get the new limits when the authorizer's cached result expires, within 60 s.",
    ]);

    const newLimits = await keysCommand([
      'set-plan',
      record.keyId,
      '--plan',
      'enterprise',
      '--per-minute',
      '2000',
      '--per-day',
      '2000',
    ]);
    expect(newLimits.code).toBe(0);
    expect(await keys.findByToken(token)).toMatchObject({ perMinute: 2_000, perDay: 2_000 });

    const toPro = await keysCommand(['set-plan', record.keyId, '--plan', 'pro']);
    expect(toPro.code).toBe(0);
    expect(toPro.stdout).toContain('  to:   Pro (300 requests/minute, 10,000 requests/day)');
    const item = await storedItem(record);
    expect(item).toMatchObject({ plan: 'pro' });
    expect(item).not.toHaveProperty('perMinute');
    expect(item).not.toHaveProperty('perDay');
  });

  it('refuses to move a revoked key', async () => {
    const { record } = await seedKey({ plan: 'free' });
    const { key: revoked } = await service.revokeKey(record.keyId, TEST_CONTEXT);

    const { code, stderr } = await keysCommand(['set-plan', record.keyId, '--plan', 'pro']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: Key ${record.keyId} was revoked at ${revoked.revokedAt}; a revoked key keeps its plan.`,
    ]);
    expect(await storedItem(record)).toMatchObject({ plan: 'free' });
  });
});

describe('keys command on a deployed stage', () => {
  useDeployedStage();

  /** GetApiKeys finds the key's API key `apikey-9`, which GetUsagePlans finds in `usagePlans`. */
  function givenApiKeyIn(keyId: string, usagePlans: { id: string; name: string }[]) {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [{ id: 'apikey-9', name: keyId }] });
    apiGateway.on(GetUsagePlansCommand).resolves({ items: usagePlans });
    apiGateway.on(CreateUsagePlanCommand).resolves({ id: 'own-plan-9' });
    apiGateway.on(UpdateUsagePlanCommand).resolves({});
    apiGateway.on(DeleteUsagePlanKeyCommand).resolves({});
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});
    apiGateway.on(DeleteUsagePlanCommand).resolves({});
  }

  const lookups = (keyId: string) => [
    ['GetApiKeysCommand', { nameQuery: keyId }],
    ['GetUsagePlansCommand', { keyId: 'apikey-9' }],
  ];

  it("moves a Pro key to Enterprise: creates its own usage plan, then moves the API key out of Pro's into it", async () => {
    const { record } = await seedKey({ plan: 'pro' });
    givenApiKeyIn(record.keyId, [{ id: usagePlanId('pro'), name: 'petstore-staging-Pro' }]);

    const { code, stdout } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'enterprise', '--per-minute', '3000', '--per-day', '1000000'],
      ...['--stage', 'staging'],
    ]);

    expect(code).toBe(0);
    expect(await storedItem(record)).toMatchObject({
      plan: 'enterprise',
      perMinute: 3_000,
      perDay: 1_000_000,
    });
    expect(apiGatewayCalls()).toEqual([
      ...lookups(record.keyId),
      [
        'CreateUsagePlanCommand',
        {
          name: ownPlanName(record.keyId),
          description: `Enterprise key ${record.keyId}: 3000 requests per minute, 1000000 per day`,
          throttle: { rateLimit: 50, burstLimit: 6_000 },
          quota: { limit: 2_000_000, period: 'DAY' },
          apiStages: [{ apiId: restApiId, stage: 'v1' }],
        },
      ],
      ['DeleteUsagePlanKeyCommand', { usagePlanId: usagePlanId('pro'), keyId: 'apikey-9' }],
      [
        'CreateUsagePlanKeyCommand',
        { usagePlanId: 'own-plan-9', keyId: 'apikey-9', keyType: 'API_KEY' },
      ],
    ]);
    expect(stdout).toContain(
      `  removed API Gateway API key apikey-9 from usage plan ${usagePlanId('pro')}`,
    );
    expect(stdout).toContain('  added API Gateway API key apikey-9 to usage plan own-plan-9');
  });

  it('gives an Enterprise key new limits by updating its own usage plan, leaving the API key in it', async () => {
    const { record } = await enterpriseKey();
    givenApiKeyIn(record.keyId, [{ id: 'own-plan-9', name: ownPlanName(record.keyId) }]);

    const { code } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'enterprise', '--per-minute', '120', '--per-day', '5000'],
      ...['--stage', 'staging'],
    ]);

    expect(code).toBe(0);
    expect(await storedItem(record)).toMatchObject({ perMinute: 120, perDay: 5_000 });
    expect(apiGatewayCalls()).toEqual([
      ...lookups(record.keyId),
      [
        'UpdateUsagePlanCommand',
        {
          usagePlanId: 'own-plan-9',
          patchOperations: [
            {
              op: 'replace',
              path: '/description',
              value: `Enterprise key ${record.keyId}: 120 requests per minute, 5000 per day`,
            },
            { op: 'replace', path: '/throttle/rateLimit', value: '2' },
            { op: 'replace', path: '/throttle/burstLimit', value: '240' },
            { op: 'replace', path: '/quota/limit', value: '10000' },
          ],
        },
      ],
    ]);
  });

  it("moves an Enterprise key to Business: the API key into Business's usage plan, then deletes its own", async () => {
    const { record } = await enterpriseKey();
    givenApiKeyIn(record.keyId, [{ id: 'own-plan-9', name: ownPlanName(record.keyId) }]);

    const { code, stdout } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'business', '--stage', 'staging'],
    ]);

    expect(code).toBe(0);
    const item = await storedItem(record);
    expect(item).toMatchObject({ plan: 'business' });
    expect(item).not.toHaveProperty('perMinute');
    expect(apiGatewayCalls()).toEqual([
      ...lookups(record.keyId),
      ['DeleteUsagePlanKeyCommand', { usagePlanId: 'own-plan-9', keyId: 'apikey-9' }],
      [
        'CreateUsagePlanKeyCommand',
        { usagePlanId: usagePlanId('business'), keyId: 'apikey-9', keyType: 'API_KEY' },
      ],
      ['DeleteUsagePlanCommand', { usagePlanId: 'own-plan-9' }],
    ]);
    expect(stdout.at(-1)).toBe(
      "Deleted usage plan own-plan-9, the key's own while it was on Enterprise.",
    );
  });

  it('says how to delete the old own usage plan when API Gateway refuses to, the move standing', async () => {
    const { record } = await enterpriseKey();
    givenApiKeyIn(record.keyId, [{ id: 'own-plan-9', name: ownPlanName(record.keyId) }]);
    apiGateway.on(DeleteUsagePlanCommand).rejects(new Error('ConflictException'));

    const { code, stdout, stderr } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'free', '--stage', 'staging'],
    ]);

    expect(code).toBe(1);
    expect(stdout).toContain('  to:   Free (60 requests/minute, 1,000 requests/day)');
    expect(stderr).toEqual([
      `keys: Key ${record.keyId} has moved, but its old usage plan own-plan-9 could not be deleted (ConflictException): delete it with \`aws apigateway delete-usage-plan --usage-plan-id own-plan-9\`.`,
    ]);
    expect(await storedItem(record)).toMatchObject({ plan: 'free' });
  });

  it('puts a Pro key back when API Gateway refuses to add it to its new Enterprise usage plan', async () => {
    const { record } = await seedKey({ plan: 'pro' });
    givenApiKeyIn(record.keyId, [{ id: usagePlanId('pro'), name: 'petstore-staging-Pro' }]);
    apiGateway
      .on(CreateUsagePlanKeyCommand, { usagePlanId: 'own-plan-9' })
      .rejects(new Error('TooManyRequestsException'));

    const { code, stdout, stderr } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'enterprise', '--per-minute', '10', '--per-day', '100'],
      ...['--stage', 'staging'],
    ]);

    expect(code).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([
      `keys: API Gateway refused the move (TooManyRequestsException); undone: put API Gateway API key apikey-9 back in usage plan ${usagePlanId('pro')}, delete usage plan own-plan-9. Key ${record.keyId} stays on Pro. Retry after 5 seconds.`,
    ]);
    expect(await storedItem(record)).toEqual(record);
    expect(apiGatewayCalls().slice(-2)).toEqual([
      [
        'CreateUsagePlanKeyCommand',
        { usagePlanId: usagePlanId('pro'), keyId: 'apikey-9', keyType: 'API_KEY' },
      ],
      ['DeleteUsagePlanCommand', { usagePlanId: 'own-plan-9' }],
    ]);
  });

  it('keeps an Enterprise key, its limits and its own usage plan when API Gateway refuses the move to Free', async () => {
    const { record } = await enterpriseKey();
    givenApiKeyIn(record.keyId, [{ id: 'own-plan-9', name: ownPlanName(record.keyId) }]);
    apiGateway
      .on(CreateUsagePlanKeyCommand, { usagePlanId: usagePlanId('free') })
      .rejects(new Error('ConflictException'));

    const { code } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'free', '--stage', 'staging'],
    ]);

    expect(code).toBe(1);
    expect(await storedItem(record)).toEqual(record);
    expect(apiGatewayCalls().slice(-1)).toEqual([
      [
        'CreateUsagePlanKeyCommand',
        { usagePlanId: 'own-plan-9', keyId: 'apikey-9', keyType: 'API_KEY' },
      ],
    ]);
    expect(apiGateway.commandCalls(DeleteUsagePlanCommand)).toEqual([]);
  });

  it('changes nothing when the key has no API Gateway API key on the stage', async () => {
    const { record } = await seedKey({ plan: 'free' });
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });

    const { code, stderr } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'pro', '--stage', 'staging'],
    ]);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: Key ${record.keyId} needs exactly one API Gateway API key named after it, and there are 0: nothing was changed. Retry after 5 seconds.`,
    ]);
    expect(await storedItem(record)).toEqual(record);
    expect(apiGatewayCalls()).toEqual([['GetApiKeysCommand', { nameQuery: record.keyId }]]);
  });
});
