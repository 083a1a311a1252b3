/**
 * The keys command run in-process against the test file's own tables on DynamoDB Local (a
 * "deployed stage" is those tables too, with CloudFormation and API Gateway mocked), and the
 * fixtures its tests share.
 */
import { createServer } from 'node:net';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach } from 'vitest';
import { type KeysCommandDependencies, runKeysCommand } from '../../infra/cli/keys/program.ts';
import { STACK_OUTPUTS, stackName, usagePlanOutputName } from '../../infra/stages.ts';
import { createDocumentClient } from '../../shared/clients.ts';
import { type ApiKeyRecord, DynamoDBKeyStore, keyStoreFromEnv } from '../../shared/keys/store.ts';
import { PLAN_IDS, type RequestLimits } from '../../shared/plans.ts';
import { DynamoDBRateLimitBans } from '../../shared/rate-limit/bans.ts';
import { DynamoDBRateLimiter } from '../../shared/rate-limit/limiter.ts';
import { DynamoDBKeyUsage } from '../../shared/rate-limit/usage.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { COUNTERS_TABLE, KEYS_TABLE } from '../../shared/tables.ts';

/** The run's DynamoDB Local. */
export const endpoint = requiredSetting(readSettings(), 'DYNAMODB_ENDPOINT');
/** The test file's keys table. */
export const tableName = requiredSetting(readSettings(), KEYS_TABLE.envVar);
/** The test file's counters table. */
export const countersTableName = requiredSetting(readSettings(), COUNTERS_TABLE.envVar);
/** The test file's keys table, to set up keys and check what the command stored. */
export const keys = keyStoreFromEnv();
/** A client of the run's DynamoDB Local, to read items as DynamoDB holds them. */
export const documentClient = createDocumentClient();
/** The test file's counters table, to check a key's ban. */
export const bans = new DynamoDBRateLimitBans(documentClient, countersTableName);

/** This file's tables on the run's DynamoDB Local, as the local stack's keys command sees them. */
export const localStack: KeysCommandDependencies['local'] = {
  endpoint,
  keysTableName: tableName,
  countersTableName,
  credentialsFile: '.petstore/dynamodb.env',
  hasCredentials: true,
};

/** CloudFormation, mocked: a test sets the stack outputs (see `useDeployedStage`). */
export const cloudFormation = mockClient(CloudFormationClient);
/** API Gateway, mocked: a test sets its answers and reads its calls. */
export const apiGateway = mockClient(APIGatewayClient);

/** Runs the command in-process against this file's tables; stdout and stderr as lines. */
export async function keysCommand(
  args: string[],
  local: KeysCommandDependencies['local'] = localStack,
) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const dependencies: KeysCommandDependencies = {
    local,
    // Without an endpoint (a deployed stage) the stores fall back to DYNAMODB_ENDPOINT: the
    // "deployed" tables are this file's tables on DynamoDB Local.
    openKeyStore: (table, at) =>
      new DynamoDBKeyStore(createDocumentClient({ endpoint: at }), table),
    openRateLimitBans: (table, at) =>
      new DynamoDBRateLimitBans(createDocumentClient({ endpoint: at }), table),
    openKeyUsage: (table, at) =>
      new DynamoDBKeyUsage(createDocumentClient({ endpoint: at }), table),
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
export async function ban(keyId: string): Promise<number> {
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
export async function enterpriseKey(limits: RequestLimits = { perMinute: 600, perDay: 100_000 }) {
  return keys.createKey({ plan: 'enterprise', owner: 'Big Pets Inc', limits });
}

/** The keys table's item for a key, as DynamoDB holds it. */
export async function storedItem(record: ApiKeyRecord) {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: { keyHash: record.keyHash } }),
  );
  return Item;
}

export async function activeKeyIds(): Promise<string[]> {
  return (await keys.listKeys()).filter((key) => !key.revokedAt).map((key) => key.keyId);
}

/** A port on 127.0.0.1 where nothing listens. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The id of the stage's usage plan of a standard plan, as the mocked stack outputs give it. */
export const usagePlanId = (plan: string) => `usage-plan-${plan}`;

/** The stage's RestApi, as the mocked stack outputs give it. */
export const restApiId = 'rest-api-1';

/** The name of an Enterprise key's own usage plan on the staging stage. */
export const ownPlanName = (keyId: string) => `${stackName('staging')}-enterprise-${keyId}`;

/** Every API Gateway call, in order, as [command, input]. */
export const apiGatewayCalls = () =>
  apiGateway.calls().map((call) => [call.args[0].constructor.name, call.args[0].input]);

/**
 * Before each test of the calling `describe`: a deployed stage whose stack outputs name this
 * file's tables, `restApiId` and a usage plan per standard plan (`usagePlanId`), and no API
 * Gateway behaviour until the test sets one.
 */
export function useDeployedStage(): void {
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
}
