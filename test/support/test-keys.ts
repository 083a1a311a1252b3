/**
 * Keys for tests. A test that changes keys does so through the key service, as every door does,
 * with the actor `test` (`TEST_CONTEXT`); a test that only needs a key to call with seeds it
 * straight into a keys table (`seedKey`): a fixture, with no audit entry, as no production code
 * may write one (test/unit/import-graph.test.ts).
 */
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { systemAuditContext } from '../../shared/audit/entry.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import type { KeyHead } from '../../shared/dynamodb/key-conditions.ts';
import { KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import {
  type ApiKeyRecord,
  type IssuedKey,
  type NewKeyInput,
  newKey,
} from '../../shared/keys/key-records.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';

/** The audit context of the tests' changes: the system actor `test`. */
export const TEST_CONTEXT = systemAuditContext('test');

/** A keys table and the client to reach it. */
export interface KeysTable {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/**
 * Writes a new key (`newKey`: its token's row, with `fields`, and its head) straight into a keys
 * table, as a fixture: no audit entry, no API key.
 * @param fields What the row holds besides, e.g. `revokedAt`. @default - none
 * @param table @default - the test file's keys table (`KEYS_TABLE_NAME`), on a client of its own
 * @returns The key as stored, and its token.
 */
export async function seedKey(
  input: NewKeyInput,
  fields: Partial<ApiKeyRecord> = {},
  table?: KeysTable,
): Promise<IssuedKey> {
  const issued = newKey(input);
  const record = { ...issued.record, ...fields };
  const head: KeyHead = { keyHash: record.keyId, currentHash: record.keyHash };
  const client = table?.client ?? createDocumentClient();
  const tableName = table?.tableName ?? requiredSetting(readSettings(), KEYS_TABLE.envVar);
  try {
    await client.send(
      new TransactWriteCommand({
        TransactItems: [record, head].map((Item) => ({ Put: { TableName: tableName, Item } })),
      }),
    );
  } finally {
    if (!table) client.destroy();
  }
  return { record, token: issued.token };
}
