/** The keys table's only writer: a row per token, a head per key, each write with its audit entry. */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditContext } from '../audit/entry.ts';
import { isAccountOwner } from '../keys/accounts.ts';
import type {
  AuditedKeyStore,
  ItemWrite,
  KeysPage,
  KeysPageQuery,
  RestoreOutcome,
} from '../keys/admin-ports.ts';
import { KeyChangedError, KeyLimitReachedError } from '../keys/key-errors.ts';
import {
  type ApiKeyRecord,
  type IssuedKey,
  type KeyChange,
  type KeyTokens,
  type KeyUpdate,
  updatedKey,
} from '../keys/key-records.ts';
import { hashToken } from '../keys/token.ts';
import { unlessUnavailable } from '../store-errors.ts';
import { activeKeyAdded, activeKeyCount, activeKeyRemoved } from './account-items.ts';
import type { DynamoDBAuditLog } from './audit-log.ts';
import { batchGetItems } from './batch-get.ts';
import { DynamoDBKeyLookup } from './dynamodb-key-lookup.ts';
import { asCompared, refusedByCondition } from './item-conditions.ts';
import { KeyAuditor } from './key-audit.ts';
import {
  CHANGE_ATTEMPTS,
  headAsRead,
  headOf,
  KEY_ATTRIBUTES,
  type KeyHead,
  rowUpdateOf,
  stillAsRead,
  valuesIfAny,
} from './key-conditions.ts';
import { keysPage, ownerKeysPage } from './key-scan.ts';

/** Keys table access: the authorizer's lookup, and the key service's audited changes. */
export class DynamoDBKeyStore extends DynamoDBKeyLookup implements AuditedKeyStore {
  private readonly auditor: KeyAuditor;

  /** Written in the home region only (`keyServiceOn` checks it). @param audit Where the entries go. */
  constructor(client: DynamoDBDocumentClient, tableName: string, audit: DynamoDBAuditLog) {
    super(client, tableName);
    this.auditor = new KeyAuditor(audit);
  }

  /**
   * Puts the token's row, the head and `key.created`, and a key of an account among its active
   * keys (below `maxActiveKeys`). @throws KeyLimitReachedError; TransactionCanceledException.
   */
  async storeKey(
    { record }: IssuedKey,
    context: AuditContext,
    options: { readonly maxActiveKeys?: number } = {},
  ): Promise<void> {
    const head: KeyHead = { keyHash: record.keyId, currentHash: record.keyHash };
    const { owner, keyId } = record;
    const { maxActiveKeys } = options;
    const account = isAccountOwner(owner)
      ? [activeKeyAdded(this.tableName, owner, keyId, maxActiveKeys)]
      : [];
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            ...[record, head].map((Item) => ({
              Put: {
                TableName: this.tableName,
                Item,
                ConditionExpression: 'attribute_not_exists(keyHash)',
              },
            })),
            this.auditor.created(record, context),
            ...account,
          ],
        }),
      );
    } catch (error) {
      // The account item is the last write: its refusal is the limit.
      const reasons = error instanceof TransactionCanceledException && error.CancellationReasons;
      if (maxActiveKeys !== undefined && reasons && reasons[3]?.Code === 'ConditionalCheckFailed') {
        throw new KeyLimitReachedError(maxActiveKeys, { cause: error });
      }
      throw error;
    }
  }

  /** The active keys of the account `owner`: its account item's set, strongly consistent. */
  async activeKeys(owner: string): Promise<number> {
    return activeKeyCount(this.client, this.tableName, owner);
  }

  /**
   * A key's head and the rows it names, read strongly consistently (again when a roll raced).
   * @throws KeyChangedError when rolls keep replacing the rows, `CHANGE_ATTEMPTS` times.
   */
  async tokensOf(keyId: string): Promise<KeyTokens | undefined> {
    for (let attempt = 1; ; attempt++) {
      const head = await this.itemOf<KeyHead>(keyId);
      if (!head) return undefined;
      const [current, old] = await Promise.all([
        this.rowOf(head.currentHash),
        head.rolledOutHash === undefined ? undefined : this.rowOf(head.rolledOutHash),
      ]);
      const complete = current && (head.rolledOutHash === undefined || old);
      if (complete) return { current, ...(old && { old }) };
      if (attempt === CHANGE_ATTEMPTS) throw new KeyChangedError(keyId);
    }
  }

  /** Each token's row by its SHA-256, BatchGetItem 100 hashes a call (`batchGetItems`). */
  async findByTokens(
    tokens: readonly string[],
    options: { readonly signal?: AbortSignal } = {},
  ): Promise<Map<string, ApiKeyRecord>> {
    const keys = [...new Set(tokens.map(hashToken))].map((keyHash) => ({ keyHash }));
    const rows = await unlessUnavailable(() =>
      batchGetItems<ApiKeyRecord>(this.client, this.tableName, keys, {
        consistentRead: true,
        ...options,
      }),
    );
    return new Map(rows.map((row) => [row.keyHash, row]));
  }

  /** A page of an owner's keys (`ownerKeysPage`) or of every key (`keysPage`). */
  async listKeys({ owner, ...query }: KeysPageQuery): Promise<KeysPage> {
    return owner === undefined
      ? keysPage(this.client, this.tableName, query, (keyId) => this.tokensOf(keyId))
      : ownerKeysPage(this.client, this.tableName, owner, query);
  }

  /** One transaction on every row, guarded as read; at most `CHANGE_ATTEMPTS`. */
  async changeKey(
    read: KeyTokens,
    update: KeyUpdate,
    context: AuditContext,
    options: { readonly asRead?: boolean } = {},
  ): Promise<KeyChange> {
    const { keyId } = read.current;
    const { row, replaced } = rowUpdateOf(update);
    let tokens = read;
    for (let attempt = 1; ; attempt++) {
      const { current, old } = tokens;
      const record = updatedKey(current, update);
      const entry = this.auditor.changed(update.event, current, record, context);
      const guard = stillAsRead(current, replaced);
      const currentRow = {
        ...row,
        TableName: this.tableName,
        Key: { keyHash: current.keyHash },
        ConditionExpression: guard.ConditionExpression,
        ExpressionAttributeNames: {
          ...row.ExpressionAttributeNames,
          ...guard.ExpressionAttributeNames,
        },
        ...valuesIfAny({ ...row.ExpressionAttributeValues, ...guard.ExpressionAttributeValues }),
      };
      // A revocation takes the key out of its account's active keys, once: revokedAt is guarded.
      const { owner } = current;
      const leaves = update.event === 'key.revoked' && !current.revokedAt;
      const account =
        leaves && isAccountOwner(owner)
          ? [{ Update: activeKeyRemoved(this.tableName, owner, keyId) }]
          : [];
      const oldRow = old && {
        ...row,
        TableName: this.tableName,
        Key: { keyHash: old.keyHash },
        ConditionExpression: 'attribute_exists(#keyHash)',
        ExpressionAttributeNames: { ...row.ExpressionAttributeNames, '#keyHash': 'keyHash' },
      };
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              ...[currentRow, ...(oldRow ? [oldRow] : [])].map((each) => ({ Update: each })),
              { ConditionCheck: headAsRead(this.tableName, headOf(tokens)) },
              ...(entry ? [entry] : []),
              ...account,
            ],
          }),
        );
        return { previous: current, record };
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        if (attempt === CHANGE_ATTEMPTS) throw new KeyChangedError(keyId, { cause: error });
      }
      const again = await this.tokensOf(keyId);
      const held = (name: keyof ApiKeyRecord) =>
        JSON.stringify(again?.current[name]) === JSON.stringify(read.current[name]);
      if (!again || (options.asRead && !replaced.every(held))) throw new KeyChangedError(keyId);
      tokens = again;
    }
  }

  /** Makes the rows the rolled key's tokens, with `key.rolled`. @throws KeyChangedError: changed since `read`. */
  async rollKey(
    read: KeyTokens,
    rolled: { readonly tokens: KeyTokens; readonly graceUntil?: string },
    context: AuditContext,
  ): Promise<void> {
    const { current, old: earlier } = read;
    const { keyId } = current;
    const after = rolled.tokens;
    // The new row copies the current one: that must still be current, unrevoked and unchanged.
    const { ExpressionAttributeValues: held, ...guard } = stillAsRead(current, KEY_ATTRIBUTES);
    const stillCurrent = { TableName: this.tableName, Key: { keyHash: current.keyHash }, ...guard };
    const headGuard = headAsRead(this.tableName, headOf(read));
    const entry = this.auditor.rolled(keyId, earlier?.graceUntil, rolled.graceUntil, context);
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                Item: after.current,
                ConditionExpression: 'attribute_not_exists(keyHash)',
              },
            },
            after.old
              ? {
                  Update: {
                    ...stillCurrent,
                    UpdateExpression: 'SET #grace = :until',
                    ExpressionAttributeValues: { ...held, ':until': after.old.graceUntil },
                  },
                }
              : { Delete: { ...stillCurrent, ...valuesIfAny(held) } },
            ...(earlier
              ? [{ Delete: { TableName: this.tableName, Key: { keyHash: earlier.keyHash } } }]
              : []),
            {
              Update: {
                ...headGuard,
                UpdateExpression: after.old
                  ? 'SET currentHash = :next, rolledOutHash = :rolled'
                  : 'SET currentHash = :next REMOVE rolledOutHash',
                ExpressionAttributeValues: {
                  ...headGuard.ExpressionAttributeValues,
                  ':next': after.current.keyHash,
                  ...(after.old && { ':rolled': after.old.keyHash }),
                },
              },
            },
            entry,
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        throw new KeyChangedError(keyId, { cause: error });
      }
      throw error;
    }
  }

  /** Puts each item as compared, with `key.restored`. @returns `changed`: an item changed meanwhile. */
  async restoreKey(
    keyId: string,
    writes: readonly ItemWrite[],
    context: AuditContext,
  ): Promise<RestoreOutcome> {
    const current = writes.find(({ item }) => 'keyId' in item && item.graceUntil === undefined);
    const entry = this.auditor.restored(
      keyId,
      current && { live: current.expected, restored: current.item },
      context,
    );
    const puts = writes.map((write) => ({
      Put: { TableName: this.tableName, Item: write.item, ...asCompared(write, 'keyHash') },
    }));
    try {
      await this.client.send(new TransactWriteCommand({ TransactItems: [...puts, entry] }));
      return 'written';
    } catch (error) {
      if (refusedByCondition(error)) return 'changed';
      throw error;
    }
  }
}
