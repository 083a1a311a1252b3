/** The idempotency records on DynamoDB, written in the pet's transaction (docs/idempotency.md). */
import {
  TransactionCanceledException,
  TransactionInProgressException,
} from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  type IdempotencyRecord,
  type IdempotentOutcome,
  type IdempotentRequest,
  IN_FLIGHT,
  liveFrom,
  recordExpiry,
  repeatOutcome,
} from '../idempotency/record.ts';
import type { Pet } from '../pets/schemas.ts';
import { requiredSetting } from '../settings.ts';
import type { DynamoDBBase } from './base.ts';
import { petOf } from './pet-item.ts';

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
   * The transaction item that puts `request`'s record of `pet`, on condition that the key has no
   * live record (the condition states `isLive` for DynamoDB, with the same `liveFrom`).
   * @param nowMs Now, epoch milliseconds: the record expires 24 h later.
   */
  put(request: IdempotentRequest, pet: Pet, nowMs: number): TransactWriteItem {
    const record: IdempotencyRecord<Pet> = {
      ...request,
      result: pet,
      expiresAt: recordExpiry(nowMs),
    };
    return {
      Put: {
        TableName: this.tableName,
        Item: record,
        ConditionExpression: 'attribute_not_exists(id) OR expiresAt < :liveFrom',
        ExpressionAttributeValues: { ':liveFrom': liveFrom(nowMs) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }

  /**
   * The outcome of `request`'s transaction holding a {@link put}, cancelled with `error`; or
   * `undefined` when the key did not cancel it (rethrow the error).
   * @param recordAt Position of the put among the transaction's items.
   */
  outcomeOf(
    error: unknown,
    recordAt: number,
    request: IdempotentRequest,
  ): IdempotentOutcome<Pet> | undefined {
    // Our own transaction, retried by the SDK with its token while the first attempt still runs.
    if (error instanceof TransactionInProgressException) return IN_FLIGHT;
    if (!(error instanceof TransactionCanceledException)) return undefined;
    const reasons = error.CancellationReasons ?? [];
    const reason = reasons[recordAt];
    // The condition failed: the record it returns is live.
    if (reason?.Code === 'ConditionalCheckFailed' && reason.Item) {
      return repeatOutcome(request, recordOf(unmarshall(reason.Item)));
    }
    // Another transaction on the same record (a concurrent duplicate) is still in flight.
    if (reasons.some(({ Code }) => Code === 'TransactionConflict')) return IN_FLIGHT;
    return undefined;
  }
}

/**
 * A stored record, its Pet in the API's field order. A record of 1.0.0 (written before its
 * deploy, kept 24 h) holds the 201's body as `response.body` instead of `result`.
 */
function recordOf(item: Record<string, unknown>): IdempotencyRecord<Pet> {
  const { id, fingerprint, expiresAt, result, response } = item;
  const stored = result ?? JSON.parse((response as { body: string }).body);
  return { id, fingerprint, expiresAt, result: petOf(stored) } as IdempotencyRecord<Pet>;
}
