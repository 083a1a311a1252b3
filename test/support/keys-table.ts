/**
 * The keys table of a test file on DynamoDB Local, as the key service's tests use it: the service
 * and its DynamoDB store on it (with the file's audit and counters tables), its items as DynamoDB
 * holds them, and a store that loses a race on purpose. Real timers come back after each test
 * (`setNow`), and the client is destroyed after the file's tests.
 */
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, vi } from 'vitest';
import { DynamoDBAuditLog } from '../../shared/dynamodb/audit-log.ts';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/key-usage.ts';
import { KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import type { AuditedKeyStore } from '../../shared/keys/admin-ports.ts';
import type { IssuedKey, NewKeyInput } from '../../shared/keys/key-records.ts';
import { KeyService } from '../../shared/keys/key-service.ts';
import type { TokenStage } from '../../shared/keys/token.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { racingClient } from './racing-client.ts';
import { TEST_CONTEXT } from './test-keys.ts';

const settings = readSettings();
/** A client of the run's DynamoDB Local. */
export const client = createDocumentClient();
afterEach(() => {
  vi.useRealTimers();
});
afterAll(() => client.destroy());
/** The test file's keys table. */
export const tableName = requiredSetting(settings, KEYS_TABLE.envVar);
/** The test file's audit table. */
export const audit = DynamoDBAuditLog.from({ client, settings });
/** The key service's DynamoDB store on the test file's keys table. */
export const store = new DynamoDBKeyStore(client, tableName, audit);

/** The key service on `keys` (the file's store) and the file's tables, issuing `tokenStage`'s tokens. */
export function serviceOn(keys: AuditedKeyStore = store, tokenStage: TokenStage = 'local') {
  const counters = requiredSetting(settings, 'COUNTERS_TABLE_NAME');
  return new KeyService({
    keys,
    audit,
    bans: new DynamoDBRateLimitBans(client, counters, audit),
    usage: new DynamoDBKeyUsage(client, counters),
    tokenStage,
  });
}

/** The key service on the test file's tables. */
export const service = serviceOn();

/**
 * The key service on a store whose client records every call it sends (the command's name and
 * its input, as DynamoDB receives them) in `calls`; the client is destroyed after the file's tests.
 */
export function recordingService(): {
  readonly keys: KeyService;
  readonly calls: { command: string; input: Record<string, unknown> }[];
} {
  const calls: { command: string; input: Record<string, unknown> }[] = [];
  const recording = createDocumentClient();
  recording.middlewareStack.add(
    (next, context) => async (args) => {
      calls.push({
        command: context.commandName ?? '',
        input: args.input as Record<string, unknown>,
      });
      return next(args);
    },
    { step: 'initialize' },
  );
  afterAll(() => recording.destroy());
  return { keys: serviceOn(new DynamoDBKeyStore(recording, tableName, audit)), calls };
}

/** The current token's row of a key, as stored, or `undefined` for no such key. */
export async function currentOf(keyId: string) {
  return (await store.tokensOf(keyId))?.current;
}

/** Issues a key through the key service, with the actor `test`: its row as stored, and its token. */
export async function issueKey(input: Omit<NewKeyInput, 'tokenStage'>): Promise<IssuedKey> {
  const { key, token } = await service.createKey(input, TEST_CONTEXT);
  const record = await currentOf(key.keyId);
  if (!record) throw new Error(`${key.keyId} was not stored`);
  return { record, token };
}

/** The keys table's item for a key hash, as DynamoDB holds it. */
export async function storedItem(keyHash: string) {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash } }));
  return Item;
}

/** Freezes `new Date()` (only Date: the SDK's timers keep running) at this ISO time. */
export function setNow(iso: string) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
}

/**
 * The key service on a store whose first transaction waits for `change` to be made through
 * another client first: a concurrent change landing between the service's read and its write,
 * every time.
 */
export function interleaved(change: () => Promise<unknown>): KeyService {
  return serviceOn(
    new DynamoDBKeyStore(
      racingClient(change, (input) => 'TransactItems' in input),
      tableName,
      audit,
    ),
  );
}

/** Every row of a key as DynamoDB holds them, ordered by hash. */
export async function rowsOf(keyId: string) {
  const { Items = [] } = await client.send(
    new ScanCommand({
      TableName: tableName,
      FilterExpression: 'keyId = :keyId',
      ExpressionAttributeValues: { ':keyId': keyId },
    }),
  );
  return Items.sort((a, b) => String(a.keyHash).localeCompare(String(b.keyHash)));
}

/** An Enterprise key that expires at `expiresAt`, issued through the key service. */
export function enterpriseKeyExpiring(expiresAt: string) {
  return issueKey({
    plan: 'enterprise',
    owner: 'Roller Ltd',
    limits: { perMinute: 100, perDay: 1_000 },
    expiresAt,
  });
}
