/** The authorizer's read of the keys table: a token's row, by its hash (docs/architecture.md). */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { requiredSetting } from '../function-settings.ts';
import type { KeyLookup } from '../keys/key-lookup.ts';
import type { ApiKeyRecord } from '../keys/key-records.ts';
import { hashToken } from '../keys/token.ts';
import { unlessUnavailable } from '../store-errors.ts';
import type { DynamoDBBase } from './base.ts';

/** Keys table reads by partition key; the key store adds the key service's audited changes. */
export class DynamoDBKeyLookup implements KeyLookup {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  /** This class (or subclass) on `base`'s `KEYS_TABLE_NAME`. @throws Error when unset. */
  static from<Store>(
    this: new (
      client: DynamoDBDocumentClient,
      tableName: string,
    ) => Store,
    { client, settings }: DynamoDBBase,
  ): Store {
    return new this(client, requiredSetting(settings, 'KEYS_TABLE_NAME'));
  }

  async findByToken(
    token: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ApiKeyRecord | undefined> {
    return unlessUnavailable(() => this.rowOf(hashToken(token), options.signal));
  }

  /** The item with this partition key, read strongly consistently, or `undefined`. */
  protected async itemOf<T>(keyHash: string, signal?: AbortSignal): Promise<T | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { keyHash }, ConsistentRead: true }),
      { abortSignal: signal },
    );
    return Item as T | undefined;
  }

  /** The row of a token hash, read strongly consistently, or `undefined`. */
  protected rowOf(keyHash: string, signal?: AbortSignal): Promise<ApiKeyRecord | undefined> {
    return this.itemOf<ApiKeyRecord>(keyHash, signal);
  }
}
