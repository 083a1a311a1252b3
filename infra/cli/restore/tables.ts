/**
 * The restore command's DynamoDB side: scanning the live table and the good copy, and writing a
 * `RestorePlan`'s conditional puts, so that a change made after the comparison is never
 * overwritten and a second run finds nothing to do.
 */
import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  paginateScan,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AuditPut } from '../../../shared/dynamodb/audit-log.ts';
import { PET_ID_SEQUENCE_ID } from '../../../shared/dynamodb/id-blocks.ts';
import type { Item, RestorePlan, Write } from './rules.ts';

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
 * The condition that the item under `write.item`'s key is still `write.expected`: every attribute
 * of either item equal to the expected value, or absent where `expected` lacks it. Without
 * `expected`: that there is no item under the key (`partitionKey` absent).
 */
export function writeCondition(write: Write, partitionKey: string) {
  if (!write.expected) {
    return {
      ConditionExpression: 'attribute_not_exists(#key)',
      ExpressionAttributeNames: { '#key': partitionKey },
    };
  }
  const expected = write.expected;
  const names = [...new Set([...Object.keys(expected), ...Object.keys(write.item)])].sort();
  const values = Object.fromEntries(
    names.flatMap((name, at) => (name in expected ? [[`:a${at}`, expected[name]]] : [])),
  );
  return {
    ConditionExpression: names
      .map((name, at) => (name in expected ? `#a${at} = :a${at}` : `attribute_not_exists(#a${at})`))
      .join(' AND '),
    ExpressionAttributeNames: Object.fromEntries(names.map((name, at) => [`#a${at}`, name])),
    ...(Object.keys(values).length > 0 && { ExpressionAttributeValues: values }),
  };
}

/** How one finding's writes ended: written, or refused because the live table changed. */
export type WriteOutcome = 'written' | 'changed';

/**
 * Puts a finding's items, each on its condition (`writeCondition`), together: one Put, or one
 * transaction for several or with an audit entry (`entry`, a key's `key.restored`).
 *
 * @returns `changed` when a condition failed: the live table changed after the comparison and
 *   nothing of the finding was written (a second run compares again).
 * @throws The client's other errors (throttling past the SDK's retries, DynamoDB not answering).
 */
export async function applyWrites(
  client: DynamoDBDocumentClient,
  tableName: string,
  partitionKey: string,
  writes: readonly Write[],
  entry?: AuditPut,
): Promise<WriteOutcome> {
  const puts = writes.map((write) => ({
    TableName: tableName,
    Item: write.item,
    ...writeCondition(write, partitionKey),
  }));
  try {
    if (puts.length === 1 && !entry) await client.send(new PutCommand(puts[0] as (typeof puts)[0]));
    else
      await client.send(
        new TransactWriteCommand({
          TransactItems: [...puts.map((Put) => ({ Put })), ...(entry ? [entry] : [])],
        }),
      );
    return 'written';
  } catch (error) {
    const refused =
      error instanceof ConditionalCheckFailedException ||
      (error instanceof TransactionCanceledException &&
        (error.CancellationReasons ?? []).some(
          (reason) => reason.Code === 'ConditionalCheckFailed',
        ));
    if (refused) return 'changed';
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
