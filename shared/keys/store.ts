/**
 * API keys: issuing, finding by bearer token, listing, moving between plans and revoking
 * (petstore-spec.md, "Authentication" and "Limits"; how keys are issued is a gap the keys command
 * fills).
 *
 * A bearer token is never stored: the keys table holds its SHA-256 as partition key, and a
 * separate random usage identifier that the authorizer hands to API Gateway to pick the key's
 * usage plan. A leaked row can neither call the API nor be turned back into a token.
 */
import { randomBytes } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { type Container, createContainer } from '../container.ts';
import {
  capLimits,
  isStandardPlanId,
  limitsOfPlan,
  type PlanId,
  planName,
  type RequestLimits,
} from '../plans.ts';
import { requiredSetting } from '../settings.ts';
import { KEY_ID_INDEX } from '../tables.ts';
import { generateToken, hashToken, type TokenStage } from './token.ts';

/** A key as stored in the keys table. */
export interface ApiKeyRecord {
  /** SHA-256 of the bearer token, lower-case hex (partition key). */
  keyHash: string;
  /** Public id of the key, `key_` + 16 hex digits; safe to log and show. */
  keyId: string;
  plan: PlanId;
  /** Requests per UTC minute: set for Enterprise keys only (standard plans read `PLANS`). */
  perMinute?: number;
  /** Requests per UTC day: set for Enterprise keys only. */
  perDay?: number;
  /** Free text naming who holds the key. */
  owner?: string;
  /** Value of the key's API Gateway API key (the usage identifier), not the bearer token. */
  usageIdentifier: string;
  /** ISO 8601 time of issue. */
  createdAt: string;
  /** ISO 8601 time of revocation; a revoked key is refused. */
  revokedAt?: string;
  /** ISO 8601 time from which the key is refused; none: it never expires. */
  expiresAt?: string;
  /**
   * Set on the row of a rolled-out token only: ISO 8601 time from which this token is refused.
   * Every other attribute is the key's, kept equal on its rows (at most two).
   */
  graceUntil?: string;
  /** On a rolled-out token's row: `keyHash` of the row that replaced it. */
  successorHash?: string;
}

/** A key as `listKeys` gives it: its current row, and when its rolled-out token ends. */
export interface ListedKey extends ApiKeyRecord {
  /** `graceUntil` of the key's rolled-out token, if it has one. */
  readonly oldTokenUntil?: string;
}

/** Why the authorizer refuses a stored key at a given time. */
export type KeyRefusal = 'revoked' | 'expired' | 'rolled';

/**
 * Whether a token's row still admits requests at `nowMs`.
 *
 * @param nowMs Epoch milliseconds.
 * @returns The reason to refuse it, or `undefined` when it is valid.
 */
export function keyRefusal(record: ApiKeyRecord, nowMs: number): KeyRefusal | undefined {
  if (record.revokedAt) return 'revoked';
  if (record.expiresAt && Date.parse(record.expiresAt) <= nowMs) return 'expired';
  if (record.graceUntil && Date.parse(record.graceUntil) <= nowMs) return 'rolled';
  return undefined;
}

/** A key changed while a command was changing it (a concurrent roll or revocation). */
export class KeyChangedError extends Error {
  constructor(keyId: string, options?: ErrorOptions) {
    super(`Key ${keyId} changed meanwhile; nothing was changed: try again.`, options);
    this.name = 'KeyChangedError';
  }
}

/**
 * The request limits of a key: its plan's, or its own for Enterprise, held to the ceiling
 * (`capLimits`) so that a key stored before the ceiling was lowered keeps working.
 *
 * @throws RangeError for an Enterprise record without valid limits.
 */
export function limitsOfKey(
  record: Pick<ApiKeyRecord, 'plan' | 'perMinute' | 'perDay'>,
): RequestLimits {
  return limitsOfPlan(record.plan, capLimits(record));
}

/**
 * The limits to store on a key of `plan`: Enterprise's own, checked; none for a standard plan,
 * whose numbers live in `PLANS` so that changing them there moves every key on it.
 *
 * @throws RangeError for Enterprise without valid limits, or for a standard plan with limits.
 */
function customLimits(plan: PlanId, limits: RequestLimits | undefined): RequestLimits | undefined {
  if (!isStandardPlanId(plan)) return limitsOfPlan(plan, limits);
  if (limits) {
    throw new RangeError(
      `a ${planName(plan)} key has its plan's limits; only an Enterprise key has its own`,
    );
  }
  return undefined;
}

/** The update that `updateEveryRow` makes on each row of a key. */
type RowUpdate = {
  UpdateExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

/** Attempts of a change to every row of a key that a concurrent change keeps cancelling. */
const CHANGE_ATTEMPTS = 3;

/** The attributes of a key that each of its rows holds, and that a roll copies to the new row. */
const KEY_ATTRIBUTES = [
  'plan',
  'perMinute',
  'perDay',
  'owner',
  'usageIdentifier',
  'createdAt',
  'revokedAt',
  'expiresAt',
] as const satisfies readonly (keyof ApiKeyRecord)[];

/**
 * The condition that a key's current row is still current (no roll since it was read) and still
 * holds `unchanged` as read, with its names (`#keyHash`, `#grace`, `#uN`) and values (`:uN`).
 */
function stillAsRead(current: ApiKeyRecord, unchanged: readonly (keyof ApiKeyRecord)[]) {
  const held = unchanged.map((name, at) => ({ name, value: current[name], at }));
  const values = Object.fromEntries(
    held.flatMap(({ value, at }) => (value === undefined ? [] : [[`:u${at}`, value]])),
  );
  return {
    ConditionExpression: [
      'attribute_exists(#keyHash) AND attribute_not_exists(#grace)',
      ...held.map(({ value, at }) =>
        value === undefined ? `attribute_not_exists(#u${at})` : `#u${at} = :u${at}`,
      ),
    ].join(' AND '),
    ExpressionAttributeNames: {
      '#keyHash': 'keyHash',
      '#grace': 'graceUntil',
      ...Object.fromEntries(held.map(({ name, at }) => [`#u${at}`, name])),
    },
    ExpressionAttributeValues: values,
  };
}

/** `ExpressionAttributeValues` when there are any: DynamoDB refuses an empty map. */
function valuesIfAny(values: Record<string, unknown>) {
  return Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {};
}

/** Keys table access. */
export class DynamoDBKeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Issues a key. The token is returned once and only its hash is kept.
   *
   * @param input.limits An Enterprise key's own limits (required for Enterprise, refused otherwise).
   * @param input.expiresAt ISO 8601 time from which the key is refused; @default - never
   * @param input.tokenStage The stage whose prefix the token carries; @default 'local'
   * @returns The stored record and the bearer token.
   * @throws RangeError when `limits` do not fit the plan (see `validateLimits`); nothing is stored.
   */
  async createKey(input: {
    plan: PlanId;
    owner?: string;
    limits?: RequestLimits;
    expiresAt?: string;
    tokenStage?: TokenStage;
  }): Promise<{ record: ApiKeyRecord; token: string }> {
    const limits = customLimits(input.plan, input.limits);
    const token = generateToken(input.tokenStage);
    const record: ApiKeyRecord = {
      keyHash: hashToken(token),
      keyId: `key_${randomBytes(8).toString('hex')}`,
      plan: input.plan,
      ...limits,
      owner: input.owner,
      usageIdentifier: randomBytes(24).toString('base64url'),
      createdAt: new Date().toISOString(),
      ...(input.expiresAt && { expiresAt: input.expiresAt }),
    };
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: record,
        ConditionExpression: 'attribute_not_exists(keyHash)',
      }),
    );
    return { record, token };
  }

  /**
   * The record of a bearer token (revoked, expired and rolled-out ones included), or `undefined`.
   * One strongly consistent GetItem, so a key works from the moment it is issued and a revocation
   * is seen at once.
   */
  async findByToken(
    token: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ApiKeyRecord | undefined> {
    return this.rowOf(hashToken(token), options.signal);
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
   * Every row of a key (at most two: its current token's and a rolled-out one's), each read
   * strongly consistently. The keyId-index is eventually consistent, so the roll's link
   * (`successorHash`) is followed too: a row added by a roll a moment ago is never missed.
   *
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

  /** The current record of the key with this public id, or `undefined`. */
  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    return (await this.rowsOfKey(keyId)).current;
  }

  /**
   * Every key, oldest first, as its current row with the end of its rolled-out token's grace.
   * Reads the whole table: an ops command, not a request path.
   */
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
    const graces = new Map(
      rows.flatMap(({ keyId, graceUntil }) => (graceUntil ? [[keyId, graceUntil] as const] : [])),
    );
    return rows
      .filter((row) => row.graceUntil === undefined)
      .map((row) => {
        const oldTokenUntil = graces.get(row.keyId);
        return oldTokenUntil ? { ...row, oldTokenUntil } : row;
      })
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * Makes the same update on every row of a key in one transaction, so that all of its tokens
   * change together. The current row must still be current (no roll in between) and hold the
   * `unchanged` attributes as read, so that the row returned is exactly what the update replaced;
   * the others must still exist. If a concurrent change cancels the transaction, the rows are read
   * again, up to `CHANGE_ATTEMPTS` times.
   *
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

  /**
   * Moves a key to `plan` (any plan to any plan, Enterprise to Enterprise with new limits) on all
   * of its rows at once (`updateEveryRow`, which also makes `previous` exactly what was replaced): the plan is set, and `perMinute`/`perDay` are set for
   * Enterprise or removed for a standard plan. Requests see the change when the authorizer's
   * cached result for the key expires (`AUTHORIZER_CACHE_TTL_SECONDS`, 60 s).
   *
   * @param limits An Enterprise key's own limits (required for Enterprise, refused otherwise).
   * @returns The record before and after the change, or `undefined` when no key has this id.
   * @throws RangeError when `limits` do not fit the plan (see `validateLimits`); nothing is changed.
   * @throws KeyChangedError when concurrent changes keep cancelling it.
   */
  async setPlan(
    keyId: string,
    plan: PlanId,
    limits?: RequestLimits,
  ): Promise<{ previous: ApiKeyRecord; record: ApiKeyRecord } | undefined> {
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
    if (!previous) return undefined;
    const { perMinute: _perMinute, perDay: _perDay, ...rest } = previous;
    return { previous, record: { ...rest, plan, ...own } };
  }

  /**
   * Revokes a key, every token of it; later requests with them get 401 once the authorizer's
   * cache entry expires.
   *
   * @returns The revoked record, or `undefined` when no key has this id. Revoking twice keeps
   *   the first revocation time.
   * @throws KeyChangedError when concurrent changes keep cancelling it.
   */
  async revokeKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const now = new Date().toISOString();
    const previous = await this.updateEveryRow(keyId, {
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ExpressionAttributeValues: { ':now': now },
    });
    return previous && { ...previous, revokedAt: previous.revokedAt ?? now };
  }

  /**
   * Sets when a key expires, on every token of it, or removes its expiry.
   *
   * @param expiresAt ISO 8601 time from which it is refused; `undefined`: never.
   * @returns The record before and after, or `undefined` when no key has this id.
   * @throws KeyChangedError when concurrent changes keep cancelling it.
   */
  async setExpiry(
    keyId: string,
    expiresAt: string | undefined,
  ): Promise<{ previous: ApiKeyRecord; record: ApiKeyRecord } | undefined> {
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
    if (!previous) return undefined;
    const { expiresAt: _expiresAt, ...rest } = previous;
    return { previous, record: { ...rest, ...(expiresAt && { expiresAt }) } };
  }

  /**
   * Rolls a key: issues a new token for the same key (same id, plan, limits, owner, expiry and
   * usage identifier, hence the same rate-limit counters and usage plan key) in one transaction
   * that adds the new token's row and gives the current one `graceUntil` (or deletes it for a
   * grace of 0). A rolled-out token still in its grace is deleted first: at most two tokens live.
   *
   * @param options.graceSeconds How long the current token keeps working, seconds (0: not at all).
   * @param options.tokenStage The stage whose prefix the new token carries; @default 'local'
   * @returns The new row, the token (shown once), and the end of the old token's grace; or
   *   `undefined` when no key has this id.
   * @throws Error for a revoked key; KeyChangedError when a concurrent change cancels the roll
   *   (nothing is changed then).
   */
  async rollKey(
    keyId: string,
    options: { graceSeconds: number; tokenStage?: TokenStage },
  ): Promise<{ record: ApiKeyRecord; token: string; graceUntil?: string } | undefined> {
    const { current, rolledOut } = await this.rowsOfKey(keyId);
    if (!current) return undefined;
    if (current.revokedAt)
      throw new Error(`Key ${keyId} was revoked; a revoked key is not rolled.`);
    const token = generateToken(options.tokenStage);
    const record: ApiKeyRecord = { ...current, keyHash: hashToken(token) };
    const graceUntil =
      options.graceSeconds > 0
        ? new Date(Date.now() + options.graceSeconds * 1000).toISOString()
        : undefined;
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

/**
 * The key store of a deployed or local function: table name from `KEYS_TABLE_NAME`.
 *
 * @param container @default createContainer()
 * @throws Error at start-up when the table name is missing.
 */
export function keyStoreFromEnv(
  { settings, client }: Container = createContainer(),
): DynamoDBKeyStore {
  return new DynamoDBKeyStore(client, requiredSetting(settings, 'KEYS_TABLE_NAME'));
}
