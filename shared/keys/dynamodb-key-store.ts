/** The KeyStore on DynamoDB: a row per token, by its SHA-256; a key's rows change in one transaction. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBase } from '../dynamodb-base.ts';
import type { PlanId, RequestLimits } from '../plans.ts';
import { requiredSetting } from '../settings.ts';
import { unlessUnavailable } from '../store-errors.ts';
import { KEY_ID_INDEX } from '../tables.ts';
import {
  CHANGE_ATTEMPTS,
  KEY_ATTRIBUTES,
  type RowUpdate,
  stillAsRead,
  valuesIfAny,
} from './dynamodb-key-conditions.ts';
import { KeyChangedError } from './errors.ts';
import {
  type ApiKeyRecord,
  customLimits,
  type ListedKey,
  listedKeys,
  type NewKeyInput,
  newKey,
  rolledKey,
  withExpiry,
  withPlan,
} from './key-records.ts';
import type { KeyChange, KeyStore } from './key-store.ts';
import { hashToken, type TokenStage } from './token.ts';

/** Keys table access. */
export class DynamoDBKeyStore implements KeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** The store on `base`'s client and table `KEYS_TABLE_NAME`. @throws Error when unset. */
  static from({ client, settings }: DynamoDBBase): DynamoDBKeyStore {
    return new DynamoDBKeyStore(client, requiredSetting(settings, 'KEYS_TABLE_NAME'));
  }

  async createKey(input: NewKeyInput): Promise<{ record: ApiKeyRecord; token: string }> {
    const { record, token } = newKey(input);
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: record,
        ConditionExpression: 'attribute_not_exists(keyHash)',
      }),
    );
    return { record, token };
  }

  async findByToken(
    token: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ApiKeyRecord | undefined> {
    return unlessUnavailable(() => this.rowOf(hashToken(token), options.signal));
  }

  /** The row of a token hash, read strongly consistently, or `undefined`. */
  private async rowOf(keyHash: string, signal?: AbortSignal): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { keyHash }, ConsistentRead: true }),
      { abortSignal: signal },
    );
    return Item as ApiKeyRecord | undefined;
  }

  /**
   * Every row of a key, each read strongly consistently, following the roll's `successorHash`.
   * @returns The current row (none when no key has this id) and the rolled-out rows.
   */
  private async rowsOfKey(
    keyId: string,
  ): Promise<{ current?: ApiKeyRecord; rolledOut: ApiKeyRecord[] }> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: KEY_ID_INDEX,
        KeyConditionExpression: 'keyId = :keyId',
        ExpressionAttributeValues: { ':keyId': keyId },
      }),
    );
    const seen = new Set<string>();
    const rows: ApiKeyRecord[] = [];
    for (let pending = Items.map((item) => String(item.keyHash)); pending.length > 0; ) {
      for (const hash of pending) seen.add(hash);
      const found = await Promise.all(pending.map((hash) => this.rowOf(hash)));
      const fresh = found.filter((row): row is ApiKeyRecord => row?.keyId === keyId);
      rows.push(...fresh);
      pending = fresh.flatMap(({ successorHash }) =>
        successorHash && !seen.has(successorHash) ? [successorHash] : [],
      );
    }
    return {
      current: rows.find((row) => row.graceUntil === undefined),
      rolledOut: rows.filter((row) => row.graceUntil !== undefined),
    };
  }

  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    return (await this.rowsOfKey(keyId)).current;
  }

  /** Reads the whole table: an ops command, not a request path. */
  async listKeys(): Promise<ListedKey[]> {
    const rows: ApiKeyRecord[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({ TableName: this.tableName, ExclusiveStartKey }),
      );
      rows.push(...((page.Items ?? []) as ApiKeyRecord[]));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return listedKeys(rows);
  }

  /**
   * Makes the same update on every row of a key in one transaction, the current row still as read
   * (docs/architecture.md); retried up to `CHANGE_ATTEMPTS` times.
   * @param unchanged Attributes of the current row that must not change between read and write.
   * @returns The key's current row as it was before the update, or `undefined` for no such key.
   * @throws KeyChangedError when concurrent changes cancel every attempt.
   */
  private async updateEveryRow(
    keyId: string,
    update: RowUpdate,
    unchanged: readonly (keyof ApiKeyRecord)[] = [],
  ): Promise<ApiKeyRecord | undefined> {
    for (let attempt = 1; ; attempt++) {
      const { current, rolledOut } = await this.rowsOfKey(keyId);
      if (!current) return undefined;
      const guard = stillAsRead(current, unchanged);
      const currentRow = {
        ...update,
        TableName: this.tableName,
        Key: { keyHash: current.keyHash },
        ConditionExpression: guard.ConditionExpression,
        ExpressionAttributeNames: {
          ...update.ExpressionAttributeNames,
          ...guard.ExpressionAttributeNames,
        },
        ...valuesIfAny({ ...update.ExpressionAttributeValues, ...guard.ExpressionAttributeValues }),
      };
      const rolledOutRows = rolledOut.map((row) => ({
        ...update,
        TableName: this.tableName,
        Key: { keyHash: row.keyHash },
        ConditionExpression: 'attribute_exists(#keyHash)',
        ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#keyHash': 'keyHash' },
      }));
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [currentRow, ...rolledOutRows].map((row) => ({ Update: row })),
          }),
        );
        return current;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        if (attempt === CHANGE_ATTEMPTS) throw new KeyChangedError(keyId, { cause: error });
      }
    }
  }

  /** One transaction on every row (`updateEveryRow`), so `previous` is exactly what was replaced. */
  async setPlan(
    keyId: string,
    plan: PlanId,
    limits?: RequestLimits,
  ): Promise<KeyChange | undefined> {
    const own = customLimits(plan, limits);
    const previous = await this.updateEveryRow(
      keyId,
      {
        UpdateExpression: own
          ? 'SET #plan = :plan, #perMinute = :perMinute, #perDay = :perDay'
          : 'SET #plan = :plan REMOVE #perMinute, #perDay',
        ExpressionAttributeNames: {
          '#plan': 'plan',
          '#perMinute': 'perMinute',
          '#perDay': 'perDay',
        },
        ExpressionAttributeValues: {
          ':plan': plan,
          ...(own && { ':perMinute': own.perMinute, ':perDay': own.perDay }),
        },
      },
      // The plan and limits replaced are what a caller restores to undo the move.
      ['plan', 'perMinute', 'perDay'],
    );
    return previous && { previous, record: withPlan(previous, plan, own) };
  }

  async revokeKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const now = new Date().toISOString();
    const previous = await this.updateEveryRow(keyId, {
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ExpressionAttributeValues: { ':now': now },
    });
    return previous && { ...previous, revokedAt: previous.revokedAt ?? now };
  }

  async setExpiry(keyId: string, expiresAt: string | undefined): Promise<KeyChange | undefined> {
    const previous = await this.updateEveryRow(
      keyId,
      expiresAt
        ? {
            UpdateExpression: 'SET expiresAt = :at',
            ExpressionAttributeValues: { ':at': expiresAt },
          }
        : { UpdateExpression: 'REMOVE expiresAt' },
      ['expiresAt'],
    );
    return previous && { previous, record: withExpiry(previous, expiresAt) };
  }

  /**
   * One transaction adds the new token's row, gives the current one `graceUntil` (or deletes it
   * for a grace of 0) and deletes an older rolled-out row.
   */
  async rollKey(
    keyId: string,
    options: { graceSeconds: number; tokenStage?: TokenStage },
  ): Promise<{ record: ApiKeyRecord; token: string; graceUntil?: string } | undefined> {
    const { current, rolledOut } = await this.rowsOfKey(keyId);
    if (!current) return undefined;
    const { record, token, graceUntil } = rolledKey(current, options);
    // The new row copies the current one: that must still be current, unrevoked and unchanged.
    const { ExpressionAttributeValues: held, ...guard } = stillAsRead(current, KEY_ATTRIBUTES);
    const stillCurrent = { TableName: this.tableName, Key: { keyHash: current.keyHash }, ...guard };
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: record,
                ConditionExpression: 'attribute_not_exists(keyHash)',
              },
            },
            graceUntil
              ? {
                  Update: {
                    ...stillCurrent,
                    UpdateExpression: 'SET #grace = :until, successorHash = :next',
                    ExpressionAttributeValues: {
                      ...held,
                      ':until': graceUntil,
                      ':next': record.keyHash,
                    },
                  },
                }
              : { Delete: { ...stillCurrent, ...valuesIfAny(held) } },
            ...rolledOut.map((row) => ({
              Delete: { TableName: this.tableName, Key: { keyHash: row.keyHash } },
            })),
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        throw new KeyChangedError(keyId, { cause: error });
      }
      throw error;
    }
    return { record, token, graceUntil };
  }
}
