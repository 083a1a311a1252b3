/**
 * The keys table of a test file on DynamoDB Local, as the key stores' tests use it: the DynamoDB
 * key store on it, its items as DynamoDB holds them, and a store that loses a race on purpose.
 */
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { vi } from 'vitest';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { racingClient } from './racing-client.ts';

/** A client of the run's DynamoDB Local; the test file destroys it after its tests. */
export const client = createDocumentClient();
/** The test file's keys table. */
export const tableName = requiredSetting(readSettings(), KEYS_TABLE.envVar);
/** The DynamoDB key store on the test file's keys table. */
export const keys = new DynamoDBKeyStore(client, tableName);

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
 * A key store whose first transaction waits for `change` to be made through another client
 * first: a concurrent change landing between the store's read and its write, every time.
 */
export function interleaved(change: () => Promise<unknown>): DynamoDBKeyStore {
  return new DynamoDBKeyStore(
    racingClient(change, (input) => 'TransactItems' in input),
    tableName,
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

/** An Enterprise key that expires at `expiresAt`. */
export function enterpriseKeyExpiring(expiresAt: string) {
  return keys.createKey({
    plan: 'enterprise',
    owner: 'Roller Ltd',
    limits: { perMinute: 100, perDay: 1_000 },
    expiresAt,
  });
}
