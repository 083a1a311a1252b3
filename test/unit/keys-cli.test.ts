import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  UpdateApiKeyCommand,
  UpdateUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, inject, it } from 'vitest';
import { type KeysCommandDependencies, runKeysCommand } from '../../infra/cli/keys-command.ts';
import { writeCredentials } from '../../infra/local/stack-files.ts';
import { STACK_OUTPUTS, stackName, usagePlanOutputName } from '../../infra/stages.ts';
import { createDocumentClient, requireEnv } from '../../shared/clients.ts';
import {
  type ApiKeyRecord,
  DynamoDBKeyStore,
  hashToken,
  keyStoreFromEnv,
} from '../../shared/keys/store.ts';
import { PLAN_IDS, PLANS, type RequestLimits } from '../../shared/plans.ts';
import { DynamoDBRateLimitBans } from '../../shared/rate-limit/bans.ts';
import { DynamoDBRateLimiter } from '../../shared/rate-limit/limiter.ts';
import { COUNTERS_TABLE, KEYS_TABLE } from '../../shared/tables.ts';

const endpoint = requireEnv('DYNAMODB_ENDPOINT');
const tableName = requireEnv(KEYS_TABLE.envVar);
const countersTableName = requireEnv(COUNTERS_TABLE.envVar);
const keys = keyStoreFromEnv();
const documentClient = createDocumentClient();
const bans = new DynamoDBRateLimitBans(documentClient, countersTableName);

/** This file's tables on the run's DynamoDB Local, as the local stack's keys command sees them. */
const localStack: KeysCommandDependencies['local'] = {
  endpoint,
  keysTableName: tableName,
  countersTableName,
  credentialsFile: '.petstore/dynamodb.env',
  hasCredentials: true,
};

const cloudFormation = mockClient(CloudFormationClient);
const apiGateway = mockClient(APIGatewayClient);

/** Runs the command in-process against this file's tables; stdout and stderr as lines. */
async function keysCommand(args: string[], local: KeysCommandDependencies['local'] = localStack) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const dependencies: KeysCommandDependencies = {
    local,
    // Without an endpoint (a deployed stage) the stores fall back to DYNAMODB_ENDPOINT: the
    // "deployed" tables are this file's tables on DynamoDB Local.
    openKeyStore: (table, at) => new DynamoDBKeyStore(createDocumentClient(at), table),
    openRateLimitBans: (table, at) => new DynamoDBRateLimitBans(createDocumentClient(at), table),
    cloudFormation: new CloudFormationClient({ region: 'us-east-1' }),
    apiGateway: new APIGatewayClient({ region: 'us-east-1' }),
    stdout: (text) => stdout.push(...text.split('\n')),
    stderr: (text) => stderr.push(...text.split('\n')),
  };
  const code = await runKeysCommand(args, dependencies);
  return { code, stdout, stderr, token: stdout.at(-1) ?? '' };
}

/**
 * Bans a key the way the limiter does in production: with a ban policy of threshold 0, the first
 * request refused at a limit of 1 per minute starts a 15-minute ban from now.
 *
 * @returns The ban's end, epoch seconds.
 */
async function ban(keyId: string): Promise<number> {
  const strict = new DynamoDBRateLimiter(documentClient, countersTableName, {
    threshold: 0,
    durationSeconds: 900,
  });
  const limits = { perMinute: 1, perDay: 1_000 };
  const now = Date.now();
  await strict.consume(keyId, limits, now);
  const { bannedUntil } = await strict.consume(keyId, limits, now);
  if (bannedUntil === undefined) throw new Error(`consume did not ban ${keyId}`);
  return bannedUntil;
}

/** An Enterprise key in the keys table. */
async function enterpriseKey(limits: RequestLimits = { perMinute: 600, perDay: 100_000 }) {
  return keys.createKey({ plan: 'enterprise', owner: 'Big Pets Inc', limits });
}

/** The keys table's item for a key, as DynamoDB holds it. */
async function storedItem(record: ApiKeyRecord) {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: { keyHash: record.keyHash } }),
  );
  return Item;
}

async function activeKeyIds(): Promise<string[]> {
  return (await keys.listKeys()).filter((key) => !key.revokedAt).map((key) => key.keyId);
}

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('keys command on the local stack', () => {
  it.each(PLAN_IDS)(
    'issues a %s key whose token is the last line of stdout and is stored only as its hash',
    async (plan) => {
      const { code, stdout, token } = await keysCommand(['create', '--plan', plan]);

      expect(code).toBe(0);
      expect(token).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
      const record = await keys.findByToken(token);
      expect(record).toMatchObject({ plan, keyHash: hashToken(token) });
      expect(record?.owner).toBeUndefined();
      const { perMinute, perDay } = PLANS[plan];
      const summary = stdout.slice(0, -1).join('\n');
      expect(summary).toContain(record?.keyId);
      expect(summary).toContain(
        `${PLANS[plan].name} (${perMinute.toLocaleString('en-US')} requests/minute, ${perDay.toLocaleString('en-US')} requests/day)`,
      );
      expect(summary).toContain('shown once; only its SHA-256 is kept');
      const { Item = {} } = await documentClient.send(
        new GetCommand({ TableName: tableName, Key: { keyHash: hashToken(token) } }),
      );
      expect(Object.values(Item).some((value) => String(value).includes(token))).toBe(false);
    },
  );

  it('records the owner given with --owner', async () => {
    const { code, stdout, token } = await keysCommand([
      'create',
      '--plan',
      'business',
      '--owner',
      'Zoë\'s "Pets" Ltd',
    ]);

    expect(code).toBe(0);
    expect(stdout).toContain('  owner: Zoë\'s "Pets" Ltd');
    expect(await keys.findByToken(token)).toMatchObject({ owner: 'Zoë\'s "Pets" Ltd' });
  });

  it('lists every key with its plan, limits, ban, status, owner and creation time, never a token or hash', async () => {
    const issued = await keys.createKey({ plan: 'pro', owner: 'list test' });
    const revoked = await keys.createKey({ plan: 'free' });
    await keys.revokeKey(revoked.record.keyId);
    const enterprise = await enterpriseKey({ perMinute: 5_000, perDay: 2_000_000 });
    const bannedUntil = await ban(enterprise.record.keyId);

    const { code, stdout } = await keysCommand(['list']);

    expect(code).toBe(0);
    expect(stdout[0]?.split(/\s{2,}/)).toEqual([
      'KEY ID',
      'PLAN',
      'PER MINUTE',
      'PER DAY',
      'BAN',
      'STATUS',
      'OWNER',
      'CREATED',
    ]);
    const rows = stdout.slice(1).map((line) => line.split(/\s{2,}/));
    expect(rows).toHaveLength((await keys.listKeys()).length);
    expect(rows).toContainEqual([
      issued.record.keyId,
      'Pro',
      '300',
      '10,000',
      'not banned',
      'active',
      'list test',
      issued.record.createdAt,
    ]);
    expect(rows).toContainEqual([
      revoked.record.keyId,
      'Free',
      '60',
      '1,000',
      'not banned',
      'revoked',
      '-',
      revoked.record.createdAt,
    ]);
    expect(rows).toContainEqual([
      enterprise.record.keyId,
      'Enterprise',
      '5,000',
      '2,000,000',
      `banned until ${new Date(bannedUntil * 1000).toISOString()}`,
      'active',
      'Big Pets Inc',
      enterprise.record.createdAt,
    ]);
    const output = stdout.join('\n');
    for (const { record, token } of [issued, revoked, enterprise]) {
      expect(output).not.toContain(token);
      expect(output).not.toContain(record.keyHash);
      expect(output).not.toContain(record.usageIdentifier);
    }
  });

  it('revokes a key, which the store then shows as revoked', async () => {
    const { record, token } = await keys.createKey({ plan: 'free' });

    const { code, stdout } = await keysCommand(['revoke', record.keyId]);

    expect(code).toBe(0);
    const revoked = await keys.findByToken(token);
    expect(revoked?.revokedAt).toBeDefined();
    expect(stdout).toEqual([
      `Revoked key ${record.keyId} (Free, owner -) at ${revoked?.revokedAt}.`,
    ]);
  });

  it('fails with exit status 1 and a clear message when the key id is unknown', async () => {
    const { code, stdout, stderr } = await keysCommand(['revoke', 'key_0000000000000000']);

    expect(code).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([
      expect.stringMatching(/^keys: No key key_0000000000000000 on the local stack .*list/),
    ]);
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
    expect(token).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
    expect(await keys.findByToken(token)).toMatchObject({
      plan: 'enterprise',
      perMinute: 5_000,
      perDay: 2_000_000,
      owner: 'Big Pets Inc',
    });
    expect(stdout).toContain('  plan:  Enterprise (5,000 requests/minute, 2,000,000 requests/day)');
  });

  it('moves a key from a standard plan to Enterprise, to new limits, and back', async () => {
    const { record, token } = await keys.createKey({ plan: 'free' });

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

  it.each([['set-plan', '--plan', 'pro'], ['unban']])(
    'fails %s with exit status 1 and a clear message when the key id is unknown',
    async (command, ...options) => {
      const before = await keys.listKeys();

      const { code, stdout, stderr } = await keysCommand([
        command,
        'key_0000000000000000',
        ...options,
      ]);

      expect(code).toBe(1);
      expect(stdout).toEqual([]);
      expect(stderr).toEqual([
        expect.stringMatching(/^keys: No key key_0000000000000000 on the local stack .*list/),
      ]);
      expect(await keys.listKeys()).toEqual(before);
    },
  );

  it('refuses to move a revoked key', async () => {
    const { record } = await keys.createKey({ plan: 'free' });
    const revoked = await keys.revokeKey(record.keyId);

    const { code, stderr } = await keysCommand(['set-plan', record.keyId, '--plan', 'pro']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: Key ${record.keyId} was revoked at ${revoked?.revokedAt}; a revoked key keeps its plan.`,
    ]);
    expect(await storedItem(record)).toMatchObject({ plan: 'free' });
  });

  it('lifts the ban of a banned key and says until when it would have run', async () => {
    const { record } = await keys.createKey({ plan: 'free' });
    const bannedUntil = await ban(record.keyId);
    expect(await bans.banState(record.keyId, Date.now())).toEqual({ bannedUntil });

    const { code, stdout } = await keysCommand(['unban', record.keyId]);

    expect(code).toBe(0);
    expect(stdout).toEqual([
      `Lifted the ban on key ${record.keyId}; it would have run until ${new Date(bannedUntil * 1000).toISOString()}.`,
    ]);
    expect(await bans.banState(record.keyId, Date.now())).toBeUndefined();
  });

  it('says so when unbanning a key that is not banned', async () => {
    const { record } = await keys.createKey({ plan: 'free' });

    const { code, stdout } = await keysCommand(['unban', record.keyId]);

    expect(code).toBe(0);
    expect(stdout).toEqual([`Key ${record.keyId} is not banned; nothing to lift.`]);
  });

  it('says to start the local stack when DynamoDB Local does not answer', async () => {
    const deadEndpoint = `http://127.0.0.1:${await closedPort()}`;

    const { code, stderr } = await keysCommand(['list'], {
      ...localStack,
      endpoint: deadEndpoint,
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: DynamoDB Local at ${deadEndpoint} does not answer: start the local stack with \`npm start\`, or set DYNAMODB_PORT to the DynamoDB Local port of the one running.`,
    ]);
  });

  it('says to start the local stack once when it has no credentials file yet', async () => {
    const { code, stderr } = await keysCommand(['list'], {
      ...localStack,
      credentialsFile: '/nowhere/dynamodb.env',
      hasCredentials: false,
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      'keys: No DynamoDB Local credentials in /nowhere/dynamodb.env: start the local stack once with `npm start`, which creates them.',
    ]);
  });

  it('says to start the local stack when the keys table does not exist', async () => {
    const { code, stderr } = await keysCommand(['create', '--plan', 'free'], {
      ...localStack,
      keysTableName: 'no-such-keys-table',
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      expect.stringMatching(
        /^keys: DynamoDB Local at .* has no table no-such-keys-table: .*npm start/,
      ),
    ]);
  });

  it('says to start the local stack when the counters table does not exist', async () => {
    const { record } = await keys.createKey({ plan: 'free' });

    const { code, stderr } = await keysCommand(['unban', record.keyId], {
      ...localStack,
      countersTableName: 'no-such-counters-table',
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      expect.stringMatching(
        /^keys: DynamoDB Local at .* has no table no-such-counters-table: .*npm start/,
      ),
    ]);
  });

  it('prints the usage, with every command and the Enterprise limit options, with --help', async () => {
    const { code, stdout, stderr } = await keysCommand(['--help']);

    expect(code).toBe(0);
    expect(stdout[0]).toBe('Usage: npm run keys -- <command> [options]');
    const usage = stdout.join('\n');
    for (const line of [
      '  create --plan free|pro|business [--owner TEXT]',
      '  create --plan enterprise --per-minute N --per-day N [--owner TEXT]',
      '  set-plan <key-id> --plan free|pro|business',
      '  set-plan <key-id> --plan enterprise --per-minute N --per-day N',
      '  unban <key-id>',
      '  --per-minute N',
      '  --per-day N',
    ]) {
      expect(usage).toContain(line);
    }
    expect(usage).toContain('within 60 s');
    expect(stderr).toEqual([]);
  });

  const enterprise = ['--plan', 'enterprise'];
  it.each([
    {
      args: ['create', '--plan', 'gold'],
      message: 'Unknown plan "gold": use one of free, pro, business, enterprise.',
    },
    { args: ['create'], message: 'create needs --plan free|pro|business|enterprise.' },
    {
      args: ['create', '--plan', 'free', '--owner', ' '],
      message: '--owner must be non-blank text without control characters.',
    },
    {
      args: ['create', '--plan', 'free', '--owner', 'a\nb'],
      message: '--owner must be non-blank text without control characters.',
    },
    {
      args: ['create', '--plan', 'free', 'extra'],
      message: 'Unexpected argument for create: extra.',
    },
    {
      args: ['create', ...enterprise],
      message: '--plan enterprise needs --per-minute N and --per-day N.',
    },
    {
      args: ['create', ...enterprise, '--per-minute', '100'],
      message: '--plan enterprise needs --per-minute N and --per-day N.',
    },
    {
      args: ['create', ...enterprise, '--per-day', '1000'],
      message: '--plan enterprise needs --per-minute N and --per-day N.',
    },
    {
      args: ['create', '--plan', 'pro', '--per-minute', '100', '--per-day', '1000'],
      message: '--per-minute and --per-day are only for --plan enterprise: Pro has fixed limits.',
    },
    {
      args: ['set-plan', 'key_0000000000000000', '--plan', 'free', '--per-day', '1000'],
      message: '--per-minute and --per-day are only for --plan enterprise: Free has fixed limits.',
    },
    ...['ten', '1.5', '0', '1e3', '0x10', '60001'].map((perMinute) => ({
      args: ['create', ...enterprise, '--per-minute', perMinute, '--per-day', '1000000'],
      message: 'Invalid limits: per-minute limit must be a whole number from 1 to 60000.',
    })),
    {
      args: ['create', ...enterprise, '--per-minute', '100', '--per-day', '99'],
      message:
        'Invalid limits: per-day limit must be a whole number from the per-minute limit (100) to 86400000.',
    },
    {
      args: [
        'set-plan',
        'key_0000000000000000',
        ...enterprise,
        '--per-minute',
        '100',
        '--per-day',
        '9e9',
      ],
      message:
        'Invalid limits: per-day limit must be a whole number from the per-minute limit (100) to 86400000.',
    },
    {
      args: ['create', ...enterprise, '--per-minute', '-5', '--per-day', '10'],
      message: "Option '--per-minute' argument is ambiguous.",
    },
    { args: ['set-plan', '--plan', 'pro'], message: 'set-plan needs a key id.' },
    {
      args: ['set-plan', 'key_0000000000000000'],
      message: 'set-plan needs --plan free|pro|business|enterprise.',
    },
    {
      args: ['set-plan', 'key_0000000000000000', '--plan', 'pro', '--owner', 'x'],
      message: '--owner is only for create, not set-plan.',
    },
    { args: ['revoke'], message: 'revoke needs a key id.' },
    { args: ['unban'], message: 'unban needs a key id.' },
    {
      args: ['unban', 'key_0000000000000000', 'key_1111111111111111'],
      message: 'Unexpected argument for unban: key_1111111111111111.',
    },
    {
      args: ['revoke', 'key_0000000000000000', '--per-day', '5'],
      message: '--per-day is only for create or set-plan, not revoke.',
    },
    {
      args: ['list', '--stage', 'qa'],
      message: 'Unknown stage "qa": use one of staging, production.',
    },
    {
      args: ['list', '--plan', 'free'],
      message: '--plan is only for create or set-plan, not list.',
    },
    { args: ['list', '--verbose'], message: "Unknown option '--verbose'" },
    {
      args: ['rotate'],
      message: 'Unknown command "rotate": use create, list, set-plan, revoke or unban.',
    },
    { args: [], message: 'Give a command: create, list, set-plan, revoke or unban.' },
  ])('answers $args with a usage error and exit status 2', async ({ args, message }) => {
    const before = await keys.listKeys();

    const { code, stdout, stderr } = await keysCommand(args);

    expect(code).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr[0]).toBe(`keys: ${message}`);
    expect(stderr).toContain('Usage: npm run keys -- <command> [options]');
    expect(await keys.listKeys()).toEqual(before);
  });
});

describe('keys command on a deployed stage', () => {
  const usagePlanId = (plan: string) => `usage-plan-${plan}`;
  const restApiId = 'rest-api-1';
  const ownPlanName = (keyId: string) => `${stackName('staging')}-enterprise-${keyId}`;

  /** Every API Gateway call, in order, as [command, input]. */
  const apiGatewayCalls = () =>
    apiGateway.calls().map((call) => [call.args[0].constructor.name, call.args[0].input]);

  beforeEach(() => {
    cloudFormation.reset();
    apiGateway.reset();
    cloudFormation.on(DescribeStacksCommand).callsFake(({ StackName }) => ({
      Stacks: [
        {
          StackName,
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(),
          Outputs: [
            { OutputKey: STACK_OUTPUTS.keysTableName, OutputValue: tableName },
            { OutputKey: STACK_OUTPUTS.countersTableName, OutputValue: countersTableName },
            { OutputKey: STACK_OUTPUTS.restApiId, OutputValue: restApiId },
            ...PLAN_IDS.map((plan) => ({
              OutputKey: usagePlanOutputName(plan),
              OutputValue: usagePlanId(plan),
            })),
          ],
        },
      ],
    }));
  });

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

  it('revokes the key and disables its API key', async () => {
    const { record, token } = await keys.createKey({ plan: 'business' });
    apiGateway.on(GetApiKeysCommand).resolves({
      items: [
        { id: 'apikey-2', name: record.keyId },
        { id: 'apikey-other', name: `${record.keyId}0` },
      ],
    });
    apiGateway.on(UpdateApiKeyCommand).resolves({});

    const { code, stdout } = await keysCommand(['revoke', record.keyId, '--stage', 'production']);

    expect(code).toBe(0);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({
      StackName: stackName('production'),
    });
    expect((await keys.findByToken(token))?.revokedAt).toBeDefined();
    expect(apiGateway.commandCalls(UpdateApiKeyCommand).map((call) => call.args[0].input)).toEqual([
      {
        apiKey: 'apikey-2',
        patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }],
      },
    ]);
    expect(stdout).toContain('Disabled API Gateway API key apikey-2.');
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
      expect(stdout.some((line) => line.startsWith('psk_'))).toBe(false);
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
    expect(stdout.some((line) => line.startsWith('psk_'))).toBe(false);
    expect(stderr).toEqual([
      expect.stringMatching(
        /^keys: API Gateway refused the key \(LimitExceededException\); undone: .*revoke key key_[0-9a-f]{16}\. No usable key was issued\.$/,
      ),
    ]);
    expect(await activeKeyIds()).toEqual(activeBefore);
    const calls = apiGatewayCalls();
    expect(calls.slice(calls.findIndex(([name]) => name === refused) + 1)).toEqual(undone);
  });

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
    const { record } = await keys.createKey({ plan: 'pro' });
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
    const { record } = await keys.createKey({ plan: 'pro' });
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
      `keys: API Gateway refused the move (TooManyRequestsException); undone: put API Gateway API key apikey-9 back in usage plan ${usagePlanId('pro')}, delete usage plan own-plan-9, put key ${record.keyId} back on Pro. Key ${record.keyId} stays on Pro (300 requests/minute, 10,000 requests/day).`,
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
    const { record } = await keys.createKey({ plan: 'free' });
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });

    const { code, stderr } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'pro', '--stage', 'staging'],
    ]);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: Key ${record.keyId} needs exactly one API Gateway API key named after it, and there are 0: nothing was changed.`,
    ]);
    expect(await storedItem(record)).toEqual(record);
    expect(apiGatewayCalls()).toEqual([['GetApiKeysCommand', { nameQuery: record.keyId }]]);
  });

  it("lifts a ban in the stage's counters table", async () => {
    const { record } = await keys.createKey({ plan: 'free' });
    await ban(record.keyId);

    const { code, stdout } = await keysCommand(['unban', record.keyId, '--stage', 'staging']);

    expect(code).toBe(0);
    expect(stdout).toEqual([expect.stringMatching(`^Lifted the ban on key ${record.keyId};`)]);
    expect(await bans.banState(record.keyId, Date.now())).toBeUndefined();
  });

  it('stores nothing when the stack lacks the usage plan of the plan', async () => {
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
    const before = await keys.listKeys();

    const { code, stderr } = await keysCommand(['create', '--plan', 'pro', '--stage', 'staging']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: Stack petstore-staging has no output ${usagePlanOutputName('pro')}: deploy the stage again.`,
    ]);
    expect(await keys.listKeys()).toEqual(before);
    expect(apiGateway.calls()).toEqual([]);
  });

  it('fails with a clear message when the stage is not deployed', async () => {
    cloudFormation
      .on(DescribeStacksCommand)
      .rejects(new Error('Stack with id petstore-staging does not exist'));

    const { code, stderr } = await keysCommand(['list', '--stage', 'staging']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      expect.stringMatching(/^keys: Cannot read stack petstore-staging .*does not exist$/),
    ]);
  });
});

describe('the keys entry, run as `npx tsx infra/cli/keys.ts`', () => {
  it('issues a key whose token, the last line of stdout, the store accepts', async () => {
    const { DYNAMODB_ENDPOINT: _, ...environment } = process.env;
    const stackDir = await mkdtemp(join(tmpdir(), 'petstore-keys-'));
    writeCredentials(stackDir, inject('dynamoCredentials'));

    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'infra/cli/keys.ts', 'create', '--plan', 'pro'],
      {
        cwd: new URL('../..', import.meta.url),
        // The entry finds DynamoDB Local through DYNAMODB_PORT, its credentials through
        // PETSTORE_DIR, and this file's table through KEYS_TABLE_NAME.
        env: {
          ...environment,
          DYNAMODB_PORT: new URL(endpoint).port,
          PETSTORE_DIR: stackDir,
          [KEYS_TABLE.envVar]: tableName,
        },
      },
    );
    await rm(stackDir, { recursive: true });

    const token = stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(await keys.findByToken(token)).toMatchObject({ plan: 'pro' });
  });
});
