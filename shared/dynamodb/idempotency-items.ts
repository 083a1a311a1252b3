/**
 * The items of an idempotency record in the pet's own transaction, and the outcome its
 * cancellation tells (docs/idempotency.md): in a stage of several regions each region writes its
 * own record of a key and checks the others'. It sends nothing itself.
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
import { ONE_REGION, othersNames, type Regions, regionalName, regionsOf } from '../regions.ts';
import { requiredSetting } from '../settings.ts';
import type { DynamoDBBase } from './base.ts';
import { petOf } from './pet-item.ts';

/** One item of a TransactWriteItems call. */
export type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The records' items in their table (`IDEMPOTENCY_TABLE`), for a transaction to write. */
export class IdempotencyRecordItems {
  /**
   * @param tableName The idempotency table.
   * @param regions The stage's regions and the writer's. @default ONE_REGION
   */
  constructor(
    private readonly tableName: string,
    private readonly regions: Regions = ONE_REGION,
  ) {}

  /**
   * The records in `base`'s table `IDEMPOTENCY_TABLE_NAME`, of its region (`PETSTORE_REGIONS`).
   * @throws Error when the table's name is unset or the regions are invalid (`regionsOf`).
   */
  static from({ settings }: Pick<DynamoDBBase, 'settings'>): IdempotencyRecordItems {
    return new IdempotencyRecordItems(
      requiredSetting(settings, 'IDEMPOTENCY_TABLE_NAME'),
      regionsOf(settings),
    );
  }

  /**
   * The transaction items of `request`'s record of `pet`: the put of this region's record (id
   * `regionalName(request.id)`), then a check of each other region's record of the key, all on
   * condition that the record is not live (the condition states `isLive` for DynamoDB, with the
   * same `liveFrom`): a key answered in any region, once replicated, creates nothing here.
   * @param nowMs Now, epoch milliseconds: the record expires 24 h later.
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
   * The outcome of `request`'s transaction holding the {@link items}, cancelled with `error`; or
   * `undefined` when no record of the key cancelled it (rethrow the error).
   * @param recordsAt Position of the first of the items among the transaction's.
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
