/** The idempotency records on DynamoDB, written in the pet's transaction (docs/idempotency.md). */
import {
  TransactionCanceledException,
  TransactionInProgressException,
} from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { type KeptRecord, liveFrom, type MetAtKey } from '../idempotency/outcome.ts';
import {
  type IdempotentRequest,
  recordExpiry,
  type StoredResponse,
} from '../idempotency/record.ts';
import { requiredSetting } from '../settings.ts';
import type { DynamoDBBase } from './base.ts';

/** One item of a TransactWriteItems call. */
export type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The records' items in their table (`IDEMPOTENCY_TABLE`), for a transaction to write. */
export class DynamoDBIdempotencyStore {
  /** @param tableName The idempotency table. */
  constructor(private readonly tableName: string) {}

  /** The records in `base`'s table `IDEMPOTENCY_TABLE_NAME`. @throws Error when unset. */
  static from({ settings }: Pick<DynamoDBBase, 'settings'>): DynamoDBIdempotencyStore {
    return new DynamoDBIdempotencyStore(requiredSetting(settings, 'IDEMPOTENCY_TABLE_NAME'));
  }

  /**
   * The transaction item that puts `request`'s record, on condition that the key has no live one.
   * @param nowMs Now, epoch milliseconds: the record expires 24 h later.
   */
  put(request: IdempotentRequest, response: StoredResponse, nowMs: number): TransactWriteItem {
    return {
      Put: {
        TableName: this.tableName,
        Item: {
          id: request.id,
          fingerprint: request.fingerprint,
          response,
          expiresAt: recordExpiry(nowMs),
        },
        ConditionExpression: 'attribute_not_exists(id) OR expiresAt < :liveFrom',
        ExpressionAttributeValues: { ':liveFrom': liveFrom(nowMs) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }

  /**
   * What a transaction holding a {@link put} met at the key, from its error (`free`: rethrow it).
   * @param recordAt Position of the put among the transaction's items.
   */
  metAtKey(error: unknown, recordAt: number): MetAtKey {
    // Our own transaction, retried by the SDK with its token while the first attempt still runs.
    if (error instanceof TransactionInProgressException) return { kind: 'in flight' };
    if (!(error instanceof TransactionCanceledException)) return { kind: 'free' };
    const reasons = error.CancellationReasons ?? [];
    const reason = reasons[recordAt];
    if (reason?.Code === 'ConditionalCheckFailed' && reason.Item) {
      const { fingerprint, response, expiresAt } = unmarshall(reason.Item);
      return { kind: 'record', record: { fingerprint, response, expiresAt } as KeptRecord };
    }
    // Another transaction on the same record (a concurrent duplicate) is still in flight.
    if (reasons.some(({ Code }) => Code === 'TransactionConflict')) return { kind: 'in flight' };
    return { kind: 'free' };
  }
}
