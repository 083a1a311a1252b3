/**
 * The keys command run in-process against admin APIs served in-process on the test file's own
 * tables on DynamoDB Local (the local stack's, and a "deployed stage"'s on those tables too:
 * `keys-command-runner.ts`), and the fixtures of test/dynamodb/keys/.
 */

import { createServer } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll } from 'vitest';
import { DynamoDBAuditLog } from '../../shared/dynamodb/audit-log.ts';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/key-usage.ts';
import { COUNTERS_TABLE, KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import type { ApiKeyRecord } from '../../shared/keys/key-records.ts';
import { KeyService } from '../../shared/keys/key-service.ts';
import type { RequestLimits } from '../../shared/plans.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { everyKey } from './every-key.ts';
import { keysCommandOn, localStackAt, startAdminApis } from './keys-command-runner.ts';
import { useDeployedStageOf } from './stage-mocks.ts';
import { seedKey } from './test-keys.ts';

export * from './keys-command-runner.ts';
export * from './stage-mocks.ts';
export { seedKey, TEST_CONTEXT } from './test-keys.ts';

/** The run's DynamoDB Local. */
export const endpoint = requiredSetting(readSettings(), 'DYNAMODB_ENDPOINT');
/** The test file's keys table. */
export const tableName = requiredSetting(readSettings(), KEYS_TABLE.envVar);
/** The test file's counters table. */
export const countersTableName = requiredSetting(readSettings(), COUNTERS_TABLE.envVar);
/** A client of the run's DynamoDB Local, to read items as DynamoDB holds them. */
export const documentClient = createDocumentClient();
/** The test file's audit table. */
const audit = DynamoDBAuditLog.from({ client: documentClient, settings: readSettings() });
/** The test file's keys table, to read what the command stored. */
export const keys = new DynamoDBKeyStore(documentClient, tableName, audit);
/** The test file's counters table, to check a key's ban. */
export const bans = new DynamoDBRateLimitBans(documentClient, countersTableName, audit);
/** The key service on this file's tables (without API Gateway), to change fixtures' keys. */
export const service = new KeyService({
  keys,
  audit,
  bans,
  usage: new DynamoDBKeyUsage(documentClient, countersTableName),
  tokenStage: 'local',
});

/** The admin APIs of the local stack and of the "deployed stage", on this file's tables. */
export const adminApis = await startAdminApis({
  keys,
  audit,
  bans,
  usage: new DynamoDBKeyUsage(documentClient, countersTableName),
});
afterAll(async () => {
  await adminApis.local.close();
  await adminApis.stage.close();
});

/** The current token's row of a key, as stored, or `undefined` for no such key. */
export async function currentOf(keyId: string) {
  return (await keys.tokensOf(keyId))?.current;
}

/** An Enterprise key (default 600 a minute, 100,000 a day), seeded. */
export function enterpriseKey(limits: RequestLimits = { perMinute: 600, perDay: 100_000 }) {
  return seedKey({ plan: 'enterprise', owner: 'Big Pets Inc', limits });
}

/** The ids of the keys not revoked. */
export async function activeKeyIds(): Promise<string[]> {
  return (await everyKey(keys)).filter((key) => !key.revokedAt).map((key) => key.keyId);
}

/** The local stack as the command sees it: its admin API on this file's tables. */
export const localStack = localStackAt(adminApis.local.url);

/** Runs the command in-process against this file's tables; stdout and stderr as lines. */
export const keysCommand = keysCommandOn(localStack);

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
export const useDeployedStage = () =>
  useDeployedStageOf({ keysTableName: tableName, countersTableName }, () => adminApis.stage.url);
