/**
 * An idempotency record's items in the pet's transaction, and the outcome its cancellation tells
 * (docs/idempotency.md); each region writes its own record and checks the others'. Sends nothing.
 */
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
import { ONE_REGION, othersNames, type Regions, regionalName } from '../regions.ts';
import { petOf } from './pet-item.ts';

/** One item of a TransactWriteItems call. */
export type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The records' items, for a transaction to write. */
export class IdempotencyRecordItems {
  /** @param regions @default ONE_REGION */
  constructor(
    private readonly tableName: string,
    private readonly regions: Regions = ONE_REGION,
  ) {}

  /**
   * The put of this region's record of `pet`, then a check of each other region's, each on
   * condition that no live record is there (`isLive`, stated for DynamoDB).
   * @param nowMs Epoch ms: the record expires 24 h later.
   */
  items(request: IdempotentRequest, pet: Pet, nowMs: number): TransactWriteItem[] {
    const record: IdempotencyRecord<Pet> = {
      ...request,
      id: regionalName(request.id, this.regions),
      result: pet,
      expiresAt: recordExpiry(nowMs),
    };
    const notLive = {
      TableName: this.tableName,
      ConditionExpression: 'attribute_not_exists(id) OR expiresAt < :liveFrom',
      ExpressionAttributeValues: { ':liveFrom': liveFrom(nowMs) },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    };
    return [
      { Put: { ...notLive, Item: record } },
      ...othersNames(request.id, this.regions).map((id) => ({
        ConditionCheck: { ...notLive, Key: { id } },
      })),
    ];
  }

  /**
   * The outcome of `request`'s transaction holding the {@link items}, cancelled with `error`;
   * `undefined` when no record cancelled it. @param recordsAt The items' first position.
   */
  outcomeOf(
    error: unknown,
    recordsAt: number,
    request: IdempotentRequest,
  ): IdempotentOutcome<Pet> | undefined {
    // Our own transaction, retried by the SDK with its token while the first attempt still runs.
    if (error instanceof TransactionInProgressException) return IN_FLIGHT;
    if (!(error instanceof TransactionCanceledException)) return undefined;
    const reasons = error.CancellationReasons ?? [];
    // A condition failed: the record it returns is live (this region's first, then the others').
    const met = reasons
      .slice(recordsAt)
      .find((reason) => reason.Code === 'ConditionalCheckFailed' && reason.Item);
    if (met?.Item) return repeatOutcome(request, recordOf(unmarshall(met.Item)));
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
