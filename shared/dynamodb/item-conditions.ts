/** A restore's puts, only as compared: a change made since is never overwritten (docs/operations.md). */
import {
  ConditionalCheckFailedException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import type { ItemWrite } from '../keys/admin-ports.ts';

/** The condition that the item under `write.item`'s key is still `write.expected` (none: absent). */
export function asCompared(write: ItemWrite, partitionKey: string) {
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

/** Whether `error` is a put or a transaction refused by a condition (nothing was written). */
export function refusedByCondition(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof TransactionCanceledException &&
      (error.CancellationReasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed'))
  );
}
