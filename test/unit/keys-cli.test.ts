import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { type KeysCommandDependencies, runKeysCommand } from '../../infra/cli/keys-command.ts';
import { STACK_OUTPUTS, stackName, usagePlanOutputName } from '../../infra/stages.ts';
import { createDocumentClient, requireEnv } from '../../shared/clients.ts';
import { DynamoDbKeyStore, hashToken, keyStoreFromEnv } from '../../shared/keys/store.ts';
import { PLAN_IDS, PLANS } from '../../shared/plans.ts';
import { KEYS_TABLE } from '../../shared/tables.ts';

const endpoint = requireEnv('DYNAMODB_ENDPOINT');
const tableName = requireEnv(KEYS_TABLE.envVar);
const keys = keyStoreFromEnv();
const documentClient = createDocumentClient();

const cloudFormation = mockClient(CloudFormationClient);
const apiGateway = mockClient(APIGatewayClient);

/** Runs the command in-process against this file's keys table; stdout and stderr as lines. */
async function keysCommand(args: string[], local = { endpoint, tableName }) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const dependencies: KeysCommandDependencies = {
    local,
    // Without an endpoint (a deployed stage) the store falls back to DYNAMODB_ENDPOINT: the
    // "deployed" keys table is this file's table on DynamoDB Local.
    openKeyStore: (table, at) => new DynamoDbKeyStore(createDocumentClient(at), table),
    cloudFormation: new CloudFormationClient({ region: 'us-east-1' }),
    apiGateway: new APIGatewayClient({ region: 'us-east-1' }),
    stdout: (text) => stdout.push(...text.split('\n')),
    stderr: (text) => stderr.push(...text.split('\n')),
  };
  const code = await runKeysCommand(args, dependencies);
  return { code, stdout, stderr, token: stdout.at(-1) ?? '' };
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

  it('lists every key with its id, plan, owner, creation time and status, never a token or hash', async () => {
    const issued = await keys.createKey({ plan: 'pro', owner: 'list test' });
    const revoked = await keys.createKey({ plan: 'free' });
    await keys.revokeKey(revoked.record.keyId);

    const { code, stdout } = await keysCommand(['list']);

    expect(code).toBe(0);
    expect(stdout[0]?.split(/\s{2,}/)).toEqual(['KEY ID', 'PLAN', 'OWNER', 'CREATED', 'STATUS']);
    const rows = stdout.slice(1).map((line) => line.split(/\s{2,}/));
    expect(rows).toHaveLength((await keys.listKeys()).length);
    expect(rows).toContainEqual([
      issued.record.keyId,
      'pro',
      'list test',
      issued.record.createdAt,
      'active',
    ]);
    expect(rows).toContainEqual([
      revoked.record.keyId,
      'free',
      '-',
      revoked.record.createdAt,
      'revoked',
    ]);
    const output = stdout.join('\n');
    for (const { record, token } of [issued, revoked]) {
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

  it('says to start the local stack when DynamoDB Local does not answer', async () => {
    const deadEndpoint = `http://127.0.0.1:${await closedPort()}`;

    const { code, stderr } = await keysCommand(['list'], { endpoint: deadEndpoint, tableName });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: DynamoDB Local at ${deadEndpoint} does not answer: start it with \`npm start\`.`,
    ]);
  });

  it('says to start the local stack when the keys table does not exist', async () => {
    const { code, stderr } = await keysCommand(['create', '--plan', 'free'], {
      endpoint,
      tableName: 'no-such-keys-table',
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      expect.stringMatching(
        /^keys: DynamoDB Local at .* has no table no-such-keys-table: .*npm start/,
      ),
    ]);
  });

  it('prints the usage with --help', async () => {
    const { code, stdout, stderr } = await keysCommand(['--help']);

    expect(code).toBe(0);
    expect(stdout[0]).toBe('Usage: npm run keys -- <command> [options]');
    expect(stderr).toEqual([]);
  });

  it.each([
    {
      args: ['create', '--plan', 'gold'],
      message: 'Unknown plan "gold": use one of free, pro, business.',
    },
    { args: ['create'], message: 'create needs --plan free|pro|business.' },
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
    { args: ['revoke'], message: 'revoke needs a key id.' },
    {
      args: ['list', '--stage', 'qa'],
      message: 'Unknown stage "qa": use one of staging, production.',
    },
    { args: ['list', '--plan', 'free'], message: '--plan is only for create, not list.' },
    { args: ['list', '--verbose'], message: "Unknown option '--verbose'" },
    { args: ['rotate'], message: 'Unknown command "rotate": use create, list or revoke.' },
    { args: [], message: 'Give a command: create, list or revoke.' },
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

    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'infra/cli/keys.ts', 'create', '--plan', 'pro'],
      {
        cwd: new URL('../..', import.meta.url),
        // The entry finds DynamoDB Local through DYNAMODB_PORT, and this file's table through KEYS_TABLE_NAME.
        env: {
          ...environment,
          DYNAMODB_PORT: new URL(endpoint).port,
          [KEYS_TABLE.envVar]: tableName,
        },
      },
    );

    const token = stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(await keys.findByToken(token)).toMatchObject({ plan: 'pro' });
  });
});
