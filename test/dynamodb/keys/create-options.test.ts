import {
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { STACK_OUTPUTS, stackName } from '../../../infra/stages.ts';
import { everyKey } from '../../support/every-key.ts';
import {
  activeKeyIds,
  apiGateway,
  apiGatewayCalls,
  cloudFormation,
  keys,
  keysCommand,
  ownPlanName,
  restApiId,
  tableName,
  usagePlanId,
  useDeployedStage,
} from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it('records the owner given with --owner', async () => {
    const { code, stdout, token } = await keysCommand([
      'create',
      '--plan',
      'business',
      '--owner',
      'Zoë\'s "Pets" Ltd',
    ]);

    expect(code).toBe(0);
    expect(stdout).toContain('  owner:   Zoë\'s "Pets" Ltd');
    expect(await keys.findByToken(token)).toMatchObject({ owner: 'Zoë\'s "Pets" Ltd' });
  });

  it('issues an Enterprise key with the limits given, its token the last line of stdout', async () => {
    const { code, stdout, token } = await keysCommand([
      'create',
      '--plan',
      'enterprise',
      '--per-minute',
      '5000',
      '--per-day',
      '2000000',
      '--owner',
      'Big Pets Inc',
    ]);

    expect(code).toBe(0);
    expect(token).toMatch(/^pet_local_[0-9A-Za-z]{38}$/);
    expect(await keys.findByToken(token)).toMatchObject({
      plan: 'enterprise',
      perMinute: 5_000,
      perDay: 2_000_000,
      owner: 'Big Pets Inc',
    });
    expect(stdout).toContain(
      '  plan:    Enterprise (5,000 requests/minute, 2,000,000 requests/day)',
    );
  });
});

describe('keys command on a deployed stage', () => {
  useDeployedStage();

  it("creates the API key with the usage identifier as its value, in the plan's usage plan", async () => {
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'apikey-1' });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});

    const { code, token } = await keysCommand([
      'create',
      '--plan',
      'pro',
      '--owner',
      'acme',
      '--stage',
      'staging',
    ]);

    expect(code).toBe(0);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({
      StackName: stackName('staging'),
    });
    const record = await keys.findByToken(token);
    expect(record).toMatchObject({ plan: 'pro', owner: 'acme' });
    expect(apiGateway.commandCalls(CreateApiKeyCommand).map((call) => call.args[0].input)).toEqual([
      expect.objectContaining({
        name: record?.keyId,
        value: record?.usageIdentifier,
        enabled: true,
      }),
    ]);
    expect(
      apiGateway.commandCalls(CreateUsagePlanKeyCommand).map((call) => call.args[0].input),
    ).toEqual([{ usagePlanId: usagePlanId('pro'), keyId: 'apikey-1', keyType: 'API_KEY' }]);
    const sentToApiGateway = JSON.stringify(apiGateway.calls().map((call) => call.args[0].input));
    expect(sentToApiGateway).not.toContain(token);
  });

  it.each([
    { refused: 'CreateApiKey', createdApiKeys: [] },
    { refused: 'CreateUsagePlanKey', createdApiKeys: ['apikey-3'] },
  ])(
    'leaves no active key behind when API Gateway refuses $refused',
    async ({ refused, createdApiKeys }) => {
      const refusal = new Error(`${refused} refused`);
      if (refused === 'CreateApiKey') apiGateway.on(CreateApiKeyCommand).rejects(refusal);
      else apiGateway.on(CreateApiKeyCommand).resolves({ id: 'apikey-3' });
      apiGateway.on(CreateUsagePlanKeyCommand).rejects(refusal);
      apiGateway.on(DeleteApiKeyCommand).resolves({});
      const activeBefore = await activeKeyIds();

      const { code, stdout, stderr } = await keysCommand([
        'create',
        '--plan',
        'free',
        '--stage',
        'staging',
      ]);

      expect(code).toBe(1);
      expect(stdout.some((line) => line.startsWith('pet_'))).toBe(false);
      expect(stderr).toEqual([expect.stringContaining(`${refused} refused`)]);
      expect(await activeKeyIds()).toEqual(activeBefore);
      expect(
        apiGateway.commandCalls(DeleteApiKeyCommand).map((call) => call.args[0].input),
      ).toEqual(createdApiKeys.map((apiKey) => ({ apiKey })));
    },
  );

  it("creates an Enterprise key's own usage plan, backstopping its limits at twice their value", async () => {
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'apikey-1' });
    apiGateway.on(CreateUsagePlanCommand).resolves({ id: 'own-plan-1' });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});

    const { code, stdout, token } = await keysCommand([
      'create',
      '--plan',
      'enterprise',
      '--per-minute',
      '600',
      '--per-day',
      '100000',
      '--stage',
      'staging',
    ]);

    expect(code).toBe(0);
    const record = await keys.findByToken(token);
    expect(record).toMatchObject({ plan: 'enterprise', perMinute: 600, perDay: 100_000 });
    const keyId = record?.keyId ?? '';
    expect(apiGatewayCalls()).toEqual([
      [
        'CreateApiKeyCommand',
        expect.objectContaining({ name: keyId, value: record?.usageIdentifier }),
      ],
      [
        'CreateUsagePlanCommand',
        {
          name: ownPlanName(keyId),
          description: `Enterprise key ${keyId}: 600 requests per minute, 100000 per day`,
          throttle: { rateLimit: 10, burstLimit: 1_200 },
          quota: { limit: 200_000, period: 'DAY' },
          apiStages: [{ apiId: restApiId, stage: 'v1' }],
        },
      ],
      [
        'CreateUsagePlanKeyCommand',
        { usagePlanId: 'own-plan-1', keyId: 'apikey-1', keyType: 'API_KEY' },
      ],
    ]);
    expect(stdout).toContain('  API Gateway API key apikey-1, in its own usage plan own-plan-1');
  });

  it.each([
    {
      refused: 'CreateUsagePlanCommand',
      undone: [['DeleteApiKeyCommand', { apiKey: 'apikey-4' }]],
    },
    {
      refused: 'CreateUsagePlanKeyCommand',
      undone: [
        ['DeleteUsagePlanCommand', { usagePlanId: 'own-plan-4' }],
        ['DeleteApiKeyCommand', { apiKey: 'apikey-4' }],
      ],
    },
  ])('undoes an Enterprise key when API Gateway refuses $refused', async ({ refused, undone }) => {
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'apikey-4' });
    apiGateway.on(CreateUsagePlanCommand).resolves({ id: 'own-plan-4' });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});
    const refusal = new Error('LimitExceededException');
    if (refused === 'CreateUsagePlanCommand')
      apiGateway.on(CreateUsagePlanCommand).rejects(refusal);
    else apiGateway.on(CreateUsagePlanKeyCommand).rejects(refusal);
    apiGateway.on(DeleteUsagePlanCommand).resolves({});
    apiGateway.on(DeleteApiKeyCommand).resolves({});
    const activeBefore = await activeKeyIds();

    const { code, stdout, stderr } = await keysCommand([
      'create',
      ...['--plan', 'enterprise', '--per-minute', '10', '--per-day', '100'],
      ...['--stage', 'staging'],
    ]);

    expect(code).toBe(1);
    expect(stdout.some((line) => line.startsWith('pet_'))).toBe(false);
    expect(stderr).toEqual([
      expect.stringMatching(
        /^keys: API Gateway refused the key \(LimitExceededException\); undone: .*delete API Gateway API key apikey-4\. No key was issued\. Retry after \d+ seconds\.$/,
      ),
    ]);
    expect(await activeKeyIds()).toEqual(activeBefore);
    const calls = apiGatewayCalls();
    expect(calls.slice(calls.findIndex(([name]) => name === refused) + 1)).toEqual(undone);
  });

  it('stores nothing when the stack lacks the admin API of the stage', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: stackName('staging'),
          StackStatus: 'CREATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [{ OutputKey: STACK_OUTPUTS.keysTableName, OutputValue: tableName }],
        },
      ],
    });
    const before = await everyKey(keys);

    const { code, stderr } = await keysCommand(['create', '--plan', 'pro', '--stage', 'staging']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: Stack petstore-staging has no output ${STACK_OUTPUTS.adminApiBaseUrl}: deploy the stage again.`,
    ]);
    expect(await everyKey(keys)).toEqual(before);
    expect(apiGateway.calls()).toEqual([]);
  });
});
