/**
 * The idempotency records on DynamoDB: one item per `<keyId>#<Idempotency-Key>` in the idempotency
 * table, put already completed in the transaction that writes the pet, `expiresAt` as TTL; why and
 * how: docs/idempotency.md.
 */
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import {
  type FoundRecord,
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
   * The transaction item that puts `request`'s record with its answer, on condition that the key
   * has no live record (none, or one past its `expiresAt`). When the condition fails, the
   * cancellation reason carries the record as it stands ({@link foundIn}).
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
        ConditionExpression: 'attribute_not_exists(id) OR expiresAt < :nowSeconds',
        ExpressionAttributeValues: { ':nowSeconds': Math.floor(nowMs / 1000) },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }

  /** The record a {@link put}'s failed condition found, or `undefined` when it carries none. */
  foundIn(reason: CancellationReason | undefined): FoundRecord | undefined {
    if (reason?.Code !== 'ConditionalCheckFailed' || !reason.Item) return undefined;
    const record = unmarshall(reason.Item);
    return { fingerprint: record.fingerprint, response: record.response as StoredResponse };
  }
}
