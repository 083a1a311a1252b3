/**
 * The keys command run in-process against the test file's own tables on DynamoDB Local (a
 * "deployed stage" is those tables too), and the fixtures of test/dynamodb/keys/. The in-memory
 * twin for test/unit/keys/ is `in-memory-keys-command.ts`.
 */
import { createServer } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { KeysCommandDependencies } from '../../infra/cli/keys/program.ts';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/rate-limiter.ts';
import { COUNTERS_TABLE, KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/usage.ts';
import type { ApiKeyRecord } from '../../shared/keys/key-records.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { keyFixtures, keysCommandOn, useDeployedStageOf } from './keys-command-runner.ts';

export * from './keys-command-runner.ts';

/** The run's DynamoDB Local. */
export const endpoint = requiredSetting(readSettings(), 'DYNAMODB_ENDPOINT');
/** The test file's keys table. */
export const tableName = requiredSetting(readSettings(), KEYS_TABLE.envVar);
/** The test file's counters table. */
export const countersTableName = requiredSetting(readSettings(), COUNTERS_TABLE.envVar);
/** A client of the run's DynamoDB Local, to read items as DynamoDB holds them. */
export const documentClient = createDocumentClient();
/** The test file's keys table, to set up keys and check what the command stored. */
export const keys = new DynamoDBKeyStore(documentClient, tableName);
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

/** Runs the command in-process against this file's tables; stdout and stderr as lines. */
export const keysCommand = keysCommandOn({
  local: localStack,
  // Without an endpoint (a deployed stage) the stores fall back to DYNAMODB_ENDPOINT: the
  // "deployed" tables are this file's tables on DynamoDB Local.
  openKeyStore: (table, at) => new DynamoDBKeyStore(createDocumentClient({ endpoint: at }), table),
  openRateLimitBans: (table, at) =>
    new DynamoDBRateLimitBans(createDocumentClient({ endpoint: at }), table),
  openKeyUsage: (table, at) => new DynamoDBKeyUsage(createDocumentClient({ endpoint: at }), table),
});

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

export const { enterpriseKey, activeKeyIds } = keyFixtures(keys);

/** The keys table's item for a key, as DynamoDB holds it. */
export async function storedItem(record: ApiKeyRecord) {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: { keyHash: record.keyHash } }),
  );
  return Item;
}

/** A port on 127.0.0.1 where nothing listens. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Before each test of the calling `describe`: a deployed stage on this file's tables. */
export const useDeployedStage = () => useDeployedStageOf(localStack);
