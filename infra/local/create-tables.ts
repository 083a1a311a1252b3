/**
 * Creates the service's tables in DynamoDB Local from the definitions the CDK stack uses
 * (shared/dynamodb/tables.ts): same keys, GSIs and TTL attribute, billed per request.
 */
import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type GlobalSecondaryIndex,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type IndexDefinition,
  type KeyAttribute,
  TABLES,
  type TableDefinition,
} from '../../shared/dynamodb/tables.ts';

/**
 * Creates every table of {@link TABLES} that does not exist yet; existing tables and their data
 * are kept. Tables are ACTIVE as soon as DynamoDB Local answers.
 *
 * @param client A client of DynamoDB Local (see `createDocumentClient`).
 * @param nameOf The name to give each table.
 * @default nameOf - the definition's `localName`
 * @returns The environment the functions need: each definition's `envVar` → its table name,
 *   e.g. `{ PETS_TABLE_NAME: 'petstore-pets', … }`.
 */
export async function createTables(
  client: DynamoDBDocumentClient,
  nameOf: (table: TableDefinition) => string = (table) => table.localName,
): Promise<Record<string, string>> {
  await Promise.all(TABLES.map((table) => createTable(client, table, nameOf(table))));
  return Object.fromEntries(TABLES.map((table) => [table.envVar, nameOf(table)]));
}

/**
 * Creates one table of `table`'s definition named `TableName` (its keys, GSIs and TTL attribute),
 * unless it exists; an existing table gets the GSIs it lacks (a store of an earlier version), as
 * a stack update adds them on AWS.
 */
export async function createTable(
  client: DynamoDBDocumentClient,
  table: TableDefinition,
  TableName: string,
): Promise<void> {
  const indexes = table.globalSecondaryIndexes;
  const attributes = new Map<string, KeyAttribute>();
  for (const key of [table.partitionKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])]) {
    if (key) attributes.set(key.name, key);
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...attributes.values()].map(
          (key): AttributeDefinition => ({ AttributeName: key.name, AttributeType: key.type }),
        ),
        KeySchema: [{ AttributeName: table.partitionKey.name, KeyType: 'HASH' }],
        GlobalSecondaryIndexes: indexes.length ? indexes.map(globalSecondaryIndex) : undefined,
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    await addMissingIndexes(client, TableName, indexes, [...attributes.values()]);
  }
  if (table.timeToLiveAttribute)
    await enableTimeToLive(client, TableName, table.timeToLiveAttribute);
}

/** An index of the definition as CreateTable and UpdateTable take it (every attribute projected). */
function globalSecondaryIndex(index: IndexDefinition): GlobalSecondaryIndex {
  return {
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
      ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' as const }] : []),
    ],
    Projection: { ProjectionType: 'ALL' },
  };
}

/** Creates on the existing table `TableName` each of `indexes` it lacks, one UpdateTable each. */
async function addMissingIndexes(
  client: DynamoDBDocumentClient,
  TableName: string,
  indexes: readonly IndexDefinition[],
  attributes: readonly KeyAttribute[],
): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName }));
  const existing = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of indexes.filter(({ indexName }) => !existing.has(indexName))) {
    await client.send(
      new UpdateTableCommand({
        TableName,
        AttributeDefinitions: attributes.map((key) => ({
          AttributeName: key.name,
          AttributeType: key.type,
        })),
        GlobalSecondaryIndexUpdates: [{ Create: globalSecondaryIndex(index) }],
      }),
    );
  }
}

async function enableTimeToLive(
  client: DynamoDBDocumentClient,
  TableName: string,
  AttributeName: string,
): Promise<void> {
  const { TimeToLiveDescription } = await client.send(new DescribeTimeToLiveCommand({ TableName }));
  if (TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED') return;
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName,
      TimeToLiveSpecification: { AttributeName, Enabled: true },
    }),
  );
}
