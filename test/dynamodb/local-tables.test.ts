import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { createTable, createTables } from '../../infra/local/create-tables.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import {
  COUNTERS_TABLE,
  KEYS_TABLE,
  PETS_TABLE,
  STATUS_INDEX,
} from '../../shared/dynamodb/tables.ts';

const client = createDocumentClient();
afterAll(() => client.destroy());

describe('createTables', () => {
  it('gives each table the env var of its definition, under the given names', async () => {
    const env = await createTables(client, (table) => `${table.localName}-named`);

    expect(env).toEqual({
      PETS_TABLE_NAME: 'petstore-pets-named',
      KEYS_TABLE_NAME: 'petstore-keys-named',
      COUNTERS_TABLE_NAME: 'petstore-counters-named',
      IDEMPOTENCY_TABLE_NAME: 'petstore-idempotency-named',
      AUDIT_TABLE_NAME: 'petstore-audit-named',
    });
  });

  it('creates the pets table with its key and the status GSI, billed per request', async () => {
    const { Table } = await client.send(
      new DescribeTableCommand({ TableName: process.env[PETS_TABLE.envVar] }),
    );

    expect(Table?.KeySchema).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(
      Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.KeySchema]),
    ).toEqual([
      [
        STATUS_INDEX,
        [
          { AttributeName: 'statusShard', KeyType: 'HASH' },
          { AttributeName: 'id', KeyType: 'RANGE' },
        ],
      ],
    ]);
  });

  it('creates the keys table keyed by hash, with its owner index', async () => {
    const { Table } = await client.send(
      new DescribeTableCommand({ TableName: process.env[KEYS_TABLE.envVar] }),
    );

    expect(Table?.KeySchema).toEqual([{ AttributeName: 'keyHash', KeyType: 'HASH' }]);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['OwnerKeys']);
  });

  it('adds the indexes an existing table lacks, as a store of an earlier version has it', async () => {
    const TableName = `${KEYS_TABLE.localName}-earlier`;
    await createTable(client, { ...KEYS_TABLE, globalSecondaryIndexes: [] }, TableName);
    await client.send(new PutCommand({ TableName, Item: { keyHash: 'h', keyId: 'key_1' } }));

    await createTable(client, KEYS_TABLE, TableName);

    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName)).toEqual(['OwnerKeys']);
    const { Item } = await client.send(new GetCommand({ TableName, Key: { keyHash: 'h' } }));
    expect(Item).toEqual({ keyHash: 'h', keyId: 'key_1' });
  });

  it('enables TTL on the counters table', async () => {
    const { TimeToLiveDescription } = await client.send(
      new DescribeTimeToLiveCommand({ TableName: process.env[COUNTERS_TABLE.envVar] }),
    );

    expect(TimeToLiveDescription).toEqual({
      AttributeName: 'expiresAt',
      TimeToLiveStatus: 'ENABLED',
    });
  });

  it('keeps existing tables and their data when run again', async () => {
    const TableName = process.env[PETS_TABLE.envVar];
    await client.send(new PutCommand({ TableName, Item: { id: 1, name: 'Rex' } }));

    await createTables(client, (table) => process.env[table.envVar] ?? '');

    const { Item } = await client.send(new GetCommand({ TableName, Key: { id: 1 } }));
    expect(Item).toEqual({ id: 1, name: 'Rex' });
  });
});
