/**
 * The IdempotencyStore on DynamoDB: one item per `<keyId>#<Idempotency-Key>` in the idempotency
 * table (`INPROGRESS` → `COMPLETED`, `expiresAt` as TTL), completed in the transaction that writes
 * the pet (`completion`); why and how: docs/idempotency.md.
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
import type { DynamoDBBase } from '../dynamodb-base.ts';
import { requiredSetting } from '../settings.ts';
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
  /** @param tableName The idempotency table. */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The store on `base`'s client and table `IDEMPOTENCY_TABLE_NAME`. @throws Error when unset. */
  static from({ client, settings }: DynamoDBBase): DynamoDBIdempotencyStore {
    return new DynamoDBIdempotencyStore(
      client,
      requiredSetting(settings, 'IDEMPOTENCY_TABLE_NAME'),
    );
  }

  /** One conditional PutItem (docs/idempotency.md). @throws StoreUnavailableError */
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

  /** The transaction item that completes a record with its response, while `lock` holds it. */
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

  /** One DeleteItem conditional on the lock. @throws StoreUnavailableError */
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
