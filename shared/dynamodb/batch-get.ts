/** BatchGetItem over any number of keys of one table: the key store's and the usage reads'. */
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StoreUnavailableError } from '../store-errors.ts';

/** Most keys BatchGetItem takes per call. */
export const BATCH_GET_SIZE = 100;

/** Calls for a batch's keys that DynamoDB leaves unprocessed, the first included. */
const BATCH_ATTEMPTS = 5;

export interface BatchGetOptions {
  readonly projection?: { readonly expression: string; readonly names: Record<string, string> };
  readonly consistentRead?: boolean;
  readonly signal?: AbortSignal;
}

/**
 * The items of `keys` that exist, in no order: 100 keys a call, the calls in parallel, the keys
 * left unprocessed asked again after 50, 100, 200, 400 ms.
 * @throws StoreUnavailableError when some are still unprocessed after 5 calls; else the client's.
 */
export async function batchGetItems<Item = Record<string, unknown>>(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Record<string, unknown>[],
  options: BatchGetOptions = {},
): Promise<Item[]> {
  const batches = [];
  for (let at = 0; at < keys.length; at += BATCH_GET_SIZE) {
    batches.push(batchOf(client, tableName, keys.slice(at, at + BATCH_GET_SIZE), options));
  }
  return (await Promise.all(batches)).flat() as Item[];
}

async function batchOf(
  client: DynamoDBDocumentClient,
  tableName: string,
  keys: readonly Record<string, unknown>[],
  { projection, consistentRead, signal }: BatchGetOptions,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let pending = keys;
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > BATCH_ATTEMPTS) {
      throw new StoreUnavailableError(`DynamoDB left ${pending.length} keys unprocessed.`);
    }
    if (attempt > 1) await sleep(25 * 2 ** (attempt - 1), undefined, { signal });
    const { Responses, UnprocessedKeys } = await client.send(
      new BatchGetCommand({
        RequestItems: {
          [tableName]: {
            Keys: [...pending],
            ConsistentRead: consistentRead,
            ...(projection && {
              ProjectionExpression: projection.expression,
              ExpressionAttributeNames: projection.names,
            }),
          },
        },
      }),
      { abortSignal: signal },
    );
    items.push(...(Responses?.[tableName] ?? []));
    pending = UnprocessedKeys?.[tableName]?.Keys ?? [];
  }
  return items;
}
