/** The key store on DynamoDB: a row per token, a head item per key (docs/architecture.md). */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { KeyChangeAudit } from '../keys/admin-ports.ts';
import { KeyChangedError } from '../keys/errors.ts';
import { assertHomeRegion } from '../keys/home-region.ts';
import type {
  IssuedKey,
  KeyAdministration,
  KeyChange,
  RolledKey,
} from '../keys/key-administration.ts';
import {
  type ApiKeyRecord,
  customLimits,
  type KeyTokens,
  type ListedKey,
  type NewKeyInput,
  newKey,
  rolledKey,
  withExpiry,
  withPlan,
  withRevocation,
  withScopes,
} from '../keys/key-records.ts';
import { keyScopes, type Scope } from '../keys/scopes.ts';
import type { TokenStage } from '../keys/token.ts';
import type { PlanId, RequestLimits } from '../plans.ts';
import { requiredSetting } from '../settings.ts';
import type { DynamoDBAuditLog } from './audit-log.ts';
import type { DynamoDBBase } from './base.ts';
import { type AuditedChange, KeyAuditor } from './key-audit.ts';
import {
  CHANGE_ATTEMPTS,
  headAsRead,
  KEY_ATTRIBUTES,
  type KeyHead,
  type RowUpdate,
  stillAsRead,
  valuesIfAny,
} from './key-conditions.ts';
import { DynamoDBKeyLookup } from './key-lookup.ts';
import { scanKeys } from './key-scan.ts';

/** A key as read through its head: the head, and the rows of the tokens it names. */
interface KeyRows {
  readonly head: KeyHead;
  readonly tokens: KeyTokens;
}

/**
 * Keys table access: the authorizer's lookup, the keys command's administration and, given the
 * audit table, the admin API's audited changes (each entry in its change's own transaction).
 */
export class DynamoDBKeyStore extends DynamoDBKeyLookup implements KeyAdministration {
  /**
   * The store on `base`'s keys table, in the stage's home region only: keys have one writer region.
   * @param audit The audit table, for audited changes. @default - none: unaudited only
   * @throws Error when `KEYS_TABLE_NAME` is unset, or `AWS_REGION` is not the home region.
   */
  static override from<Store>(
    this: new (
      client: DynamoDBDocumentClient,
      tableName: string,
      audit?: DynamoDBAuditLog,
    ) => Store,
    base: DynamoDBBase,
    audit?: DynamoDBAuditLog,
  ): Store {
    assertHomeRegion(base.settings, 'Keys');
    return new this(base.client, requiredSetting(base.settings, 'KEYS_TABLE_NAME'), audit);
  }

  private readonly auditor: KeyAuditor;

  /** @param audit The audit table, for audited changes. @default - none: unaudited only */
  constructor(client: DynamoDBDocumentClient, tableName: string, audit?: DynamoDBAuditLog) {
    super(client, tableName);
    this.auditor = new KeyAuditor(audit);
  }

  /** One transaction puts the token's row and the key's head. */
  async createKey(input: NewKeyInput): Promise<IssuedKey> {
    const issued = newKey(input);
    await this.storeKey(issued);
    return issued;
  }

  /**
   * Stores a key made by `newKey` (the admin API registers its API Gateway API key first): one
   * transaction puts the token's row, the key's head and, audited, its `key.created` entry.
   * @throws The client's error (TransactionCanceledException when the id or hash exists).
   */
  async storeKey({ record }: IssuedKey, audit?: KeyChangeAudit): Promise<void> {
    const head: KeyHead = { keyHash: record.keyId, currentHash: record.keyHash };
    const entry = this.auditor.created(record, audit);
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
          ...(entry ? [entry] : []),
        ],
      }),
    );
  }

  /**
   * A key's head and the rows it names, read strongly consistently (again when a roll raced).
   * @throws KeyChangedError when rolls keep replacing the rows, `CHANGE_ATTEMPTS` times.
   */
  private async rowsOfKey(keyId: string): Promise<KeyRows | undefined> {
    for (let attempt = 1; ; attempt++) {
      const head = await this.itemOf<KeyHead>(keyId);
      if (!head) return undefined;
      const [current, old] = await Promise.all([
        this.rowOf(head.currentHash),
        head.rolledOutHash === undefined ? undefined : this.rowOf(head.rolledOutHash),
      ]);
      const complete = current && (head.rolledOutHash === undefined || old);
      if (complete) return { head, tokens: { current, ...(old && { old }) } };
      if (attempt === CHANGE_ATTEMPTS) throw new KeyChangedError(keyId);
    }
  }

  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    return (await this.rowsOfKey(keyId))?.tokens.current;
  }

  /** Reads the whole table, strongly consistently: an ops command, not a request path. */
  async listKeys(): Promise<ListedKey[]> {
    return scanKeys(this.client, this.tableName);
  }

  /**
   * Makes the same update on every row of a key in one transaction, guarded by the head and the
   * `unchanged` attributes of the current row; retried up to `CHANGE_ATTEMPTS` times.
   * @returns The key's current row before the update, or `undefined` for no such key.
   * @throws KeyChangedError when concurrent changes cancel every attempt.
   */
  private async updateEveryRow(
    keyId: string,
    update: RowUpdate,
    unchanged: readonly (keyof ApiKeyRecord)[],
    change: AuditedChange,
  ): Promise<ApiKeyRecord | undefined> {
    for (let attempt = 1; ; attempt++) {
      const key = await this.rowsOfKey(keyId);
      if (!key) return undefined;
      const { head, tokens } = key;
      const { current, old } = tokens;
      const entry = this.auditor.changed(change, current, unchanged);
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
      const oldRow = old && {
        ...update,
        TableName: this.tableName,
        Key: { keyHash: old.keyHash },
        ConditionExpression: 'attribute_exists(#keyHash)',
        ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#keyHash': 'keyHash' },
      };
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [
              ...[currentRow, ...(oldRow ? [oldRow] : [])].map((row) => ({ Update: row })),
              { ConditionCheck: headAsRead(this.tableName, head) },
              ...(entry ? [entry] : []),
            ],
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
    audit?: KeyChangeAudit,
  ): Promise<KeyChange | undefined> {
    const own = customLimits(plan, limits);
    const after = (previous: ApiKeyRecord) => withPlan(previous, plan, own);
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
      { event: 'key.plan_changed', after, audit },
    );
    return previous && { previous, record: after(previous) };
  }

  async revokeKey(keyId: string, audit?: KeyChangeAudit): Promise<ApiKeyRecord | undefined> {
    const now = new Date().toISOString();
    const after = (previous: ApiKeyRecord) => withRevocation(previous, now);
    const previous = await this.updateEveryRow(
      keyId,
      {
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ExpressionAttributeValues: { ':now': now },
      },
      // So that an entry records the revocation that took effect, not a concurrent one's time.
      ['revokedAt'],
      { event: 'key.revoked', after, audit },
    );
    return previous && after(previous);
  }

  /** One transaction on every row (`updateEveryRow`), so `previous` is exactly what was replaced. */
  async setScopes(
    keyId: string,
    scopes: readonly Scope[],
    audit?: KeyChangeAudit,
  ): Promise<KeyChange | undefined> {
    const stored = keyScopes(scopes);
    const after = (previous: ApiKeyRecord) => withScopes(previous, scopes);
    const previous = await this.updateEveryRow(
      keyId,
      {
        UpdateExpression: 'SET #scopes = :scopes',
        ExpressionAttributeNames: { '#scopes': 'scopes' },
        ExpressionAttributeValues: { ':scopes': stored },
      },
      ['scopes'],
      { event: 'key.scope_changed', after, audit },
    );
    return previous && { previous, record: after(previous) };
  }

  async setExpiry(
    keyId: string,
    expiresAt: string | undefined,
    audit?: KeyChangeAudit,
  ): Promise<KeyChange | undefined> {
    const after = (previous: ApiKeyRecord) => withExpiry(previous, expiresAt);
    const previous = await this.updateEveryRow(
      keyId,
      expiresAt
        ? {
            UpdateExpression: 'SET expiresAt = :at',
            ExpressionAttributeValues: { ':at': expiresAt },
          }
        : { UpdateExpression: 'REMOVE expiresAt' },
      ['expiresAt'],
      { event: 'key.expiry_set', after, audit },
    );
    return previous && { previous, record: after(previous) };
  }

  /**
   * One transaction makes the rows the key's tokens after the roll (`rolledKey`) and, audited,
   * puts its `key.rolled` entry (the change recorded: until when the old token works).
   */
  async rollKey(
    keyId: string,
    options: { graceSeconds: number; tokenStage?: TokenStage; audit?: KeyChangeAudit },
  ): Promise<RolledKey | undefined> {
    const key = await this.rowsOfKey(keyId);
    if (!key) return undefined;
    const { head, tokens: before } = key;
    const { current } = before;
    const { token, graceUntil, tokens: after } = rolledKey(current, options);
    // The new row copies the current one: that must still be current, unrevoked and unchanged.
    const { ExpressionAttributeValues: held, ...guard } = stillAsRead(current, KEY_ATTRIBUTES);
    const stillCurrent = { TableName: this.tableName, Key: { keyHash: current.keyHash }, ...guard };
    const headGuard = headAsRead(this.tableName, head);
    const entry = this.auditor.rolled(keyId, before.old?.graceUntil, graceUntil, options.audit);
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
            ...(before.old
              ? [{ Delete: { TableName: this.tableName, Key: { keyHash: before.old.keyHash } } }]
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
            ...(entry ? [entry] : []),
          ],
        }),
      );
    } catch (error) {
      if (error instanceof TransactionCanceledException) {
        throw new KeyChangedError(keyId, { cause: error });
      }
      throw error;
    }
    return { record: after.current, token, graceUntil };
  }
}
