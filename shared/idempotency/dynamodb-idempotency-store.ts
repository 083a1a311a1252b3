/**
 * Idempotency records of createPet on DynamoDB, in the shape of Powertools' idempotency utility
 * (`INPROGRESS` → `COMPLETED`, an expiry as TTL, an in-progress lock that lapses with the
 * invocation), with one difference that makes a create exactly-once: a record is completed in
 * the same transaction that writes the pet (see `DynamoDBPetStore.createPet`), never after it.
 *
 * Item (partition key `id` = `<keyId>#<Idempotency-Key>`):
 * `status` (`INPROGRESS` | `COMPLETED`), `fingerprint` (SHA-256 of the parsed body), `lockToken`
 * and `lockedUntil` (epoch ms; the attempt that holds the record), `response` once completed,
 * `expiresAt` (epoch seconds, TTL: 24 h after the first request).
 */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { unlessUnavailable } from '../store-errors.ts';
import {
  type BeginOptions,
  IDEMPOTENCY_RECORD_TTL_SECONDS,
  type IdempotencyBegin,
  type IdempotencyLock,
  type IdempotencyStore,
  type StoredResponse,
} from './idempotency-store.ts';

/** One item of a TransactWriteItems call. */
export type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Idempotency records in their table (`IDEMPOTENCY_TABLE`). */
export class DynamoDBIdempotencyStore implements IdempotencyStore {
  /**
   * @param client Document client (DynamoDB or DynamoDB Local).
   * @param tableName The idempotency table.
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Takes the lock of a request, or tells why not. One conditional PutItem: it succeeds when no
   * live record exists, or when the record is an `INPROGRESS` lock of the same request that
   * lapsed (its attempt died); otherwise DynamoDB returns the record as it stands.
   *
   * @param id `<keyId>#<Idempotency-Key>`.
   * @param fingerprint SHA-256 of the parsed request body (`requestFingerprint`).
   * @throws StoreUnavailableError when the table cannot be read or written.
   */
  begin(id: string, fingerprint: string, options: BeginOptions): Promise<IdempotencyBegin> {
    return unlessUnavailable(() => this.lock(id, fingerprint, options));
  }

  private async lock(
    id: string,
    fingerprint: string,
    options: BeginOptions,
  ): Promise<IdempotencyBegin> {
    const token = randomUUID();
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            id,
            status: 'INPROGRESS',
            fingerprint,
            lockToken: token,
            lockedUntil: options.lockedUntil,
            expiresAt: Math.floor(options.nowMs / 1000) + IDEMPOTENCY_RECORD_TTL_SECONDS,
          },
          ConditionExpression:
            'attribute_not_exists(id) OR expiresAt < :nowSeconds OR ' +
            '(#status = :inProgress AND lockedUntil < :nowMs AND fingerprint = :fingerprint)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':nowSeconds': Math.floor(options.nowMs / 1000),
            ':nowMs': options.nowMs,
            ':inProgress': 'INPROGRESS',
            ':fingerprint': fingerprint,
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        { abortSignal: options.signal },
      );
      return { outcome: 'run', lock: { id, token } };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
      const record = unmarshall(error.Item);
      // Our own put, landed on an attempt whose answer was lost and then retried by the SDK.
      if (record.lockToken === token) return { outcome: 'run', lock: { id, token } };
      if (record.fingerprint !== fingerprint) return { outcome: 'mismatch' };
      if (record.status === 'COMPLETED') {
        return { outcome: 'replay', response: record.response as StoredResponse };
      }
      return { outcome: 'in_progress', lockedUntil: Number(record.lockedUntil) };
    }
  }

  /**
   * The write that completes a record with its response, for the transaction that performs the
   * request. It is conditional on the lock still being this attempt's, so an attempt whose lock
   * lapsed and was taken over can never complete (nor, in the same transaction, create) anything.
   */
  completion(lock: IdempotencyLock, response: StoredResponse): TransactWriteItem {
    return {
      Update: {
        TableName: this.tableName,
        Key: { id: lock.id },
        UpdateExpression: 'SET #status = :completed, #response = :response REMOVE lockedUntil',
        ConditionExpression: 'lockToken = :token AND #status = :inProgress',
        ExpressionAttributeNames: { '#status': 'status', '#response': 'response' },
        ExpressionAttributeValues: {
          ':completed': 'COMPLETED',
          ':inProgress': 'INPROGRESS',
          ':response': response,
          ':token': lock.token,
        },
      },
    };
  }

  /**
   * Deletes the record of a request that failed, so that a retry runs at once instead of meeting
   * 409 until the lock lapses. Conditional on the lock: a record completed meanwhile (a
   * transaction that landed after all) is kept, and a transaction still in flight can no longer
   * complete once the record is gone.
   *
   * @throws StoreUnavailableError when the table cannot be written.
   */
  async release(lock: IdempotencyLock, signal?: AbortSignal): Promise<void> {
    try {
      await unlessUnavailable(() =>
        this.client.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: { id: lock.id },
            ConditionExpression: 'lockToken = :token AND #status = :inProgress',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':token': lock.token, ':inProgress': 'INPROGRESS' },
          }),
          { abortSignal: signal },
        ),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
