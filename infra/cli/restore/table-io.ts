/**
 * The restore command's DynamoDB side: scanning the live table and the good copy, and writing the
 * pets of a `RestorePlan` with conditional puts (`asCompared`), so that a change made after the
 * comparison is never overwritten and a second run finds nothing to do. Keys are put back through
 * the key service (`KeyService.restoreKey`), with their audit entries.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  paginateScan,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { PET_ID_SEQUENCE_ID } from '../../../shared/dynamodb/id-blocks.ts';
import { asCompared, refusedByCondition } from '../../../shared/dynamodb/item-conditions.ts';
import type { ItemWrite, RestoreOutcome } from '../../../shared/keys/admin-ports.ts';
import type { Item, RestorePlan } from './rules.ts';

/**
 * Every item of a table, read strongly consistently, page by page.
 *
 * @throws The client's error (no such table, DynamoDB not answering).
 */
export async function scanTable(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<Item[]> {
  const items: Item[] = [];
  const pages = paginateScan({ client }, { TableName: tableName, ConsistentRead: true });
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}

/**
 * Puts a finding's pets, each on its condition (`asCompared`), together: one Put, or one
 * transaction for several.
 *
 * @returns `changed` when a condition failed: the live table changed after the comparison and
 *   nothing of the finding was written (a second run compares again).
 * @throws The client's other errors (throttling past the SDK's retries, DynamoDB not answering).
 */
export async function applyWrites(
  client: DynamoDBDocumentClient,
  tableName: string,
  partitionKey: string,
  writes: readonly ItemWrite[],
): Promise<RestoreOutcome> {
  const puts = writes.map((write) => ({
    TableName: tableName,
    Item: write.item,
    ...asCompared(write, partitionKey),
  }));
  try {
    if (puts.length === 1) await client.send(new PutCommand(puts[0] as (typeof puts)[0]));
    else
      await client.send(new TransactWriteCommand({ TransactItems: puts.map((Put) => ({ Put })) }));
    return 'written';
  } catch (error) {
    if (refusedByCondition(error)) return 'changed';
    throw error;
  }
}

/**
 * Raises the pets table's id sequence to `sequence.to` unless it is already there or above (a
 * concurrent lease may have moved it): ids are never handed out twice.
 */
export async function raiseSequence(
  client: DynamoDBDocumentClient,
  tableName: string,
  sequence: NonNullable<RestorePlan['sequence']>,
): Promise<void> {
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { id: PET_ID_SEQUENCE_ID },
        UpdateExpression: 'SET #value = :to',
        ConditionExpression: 'attribute_not_exists(#value) OR #value < :to',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':to': sequence.to },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
