/**
 * API keys: issuing, finding by bearer token, listing, moving between plans and revoking
 * (petstore-spec.md, "Authentication" and "Limits"; how keys are issued is a gap the keys command
 * fills).
 *
 * A bearer token is never stored: the keys table holds its SHA-256 as partition key, and a
 * separate random usage identifier that the authorizer hands to API Gateway to pick the key's
 * usage plan. A leaked row can neither call the API nor be turned back into a token.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
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

/** Prefix of every bearer token, so that a leaked one is easy to recognise and scan for. */
export const TOKEN_PREFIX = 'psk_';

/** SHA-256 of a bearer token, lower-case hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A fresh bearer token: `psk_` + 32 random bytes in base64url (256 bits). */
export function generateToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
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
   * @returns The stored record and the bearer token.
   * @throws RangeError when `limits` do not fit the plan (see `validateLimits`); nothing is stored.
   */
  async createKey(input: {
    plan: PlanId;
    owner?: string;
    limits?: RequestLimits;
  }): Promise<{ record: ApiKeyRecord; token: string }> {
    const limits = customLimits(input.plan, input.limits);
    const token = generateToken();
    const record: ApiKeyRecord = {
      keyHash: hashToken(token),
      keyId: `key_${randomBytes(8).toString('hex')}`,
      plan: input.plan,
      ...limits,
      owner: input.owner,
      usageIdentifier: randomBytes(24).toString('base64url'),
      createdAt: new Date().toISOString(),
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
   * The record of a bearer token (revoked ones included), or `undefined`. One strongly consistent
   * GetItem, so a key works from the moment it is issued and a revocation is seen at once.
   */
  async findByToken(
    token: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { keyHash: hashToken(token) },
        ConsistentRead: true,
      }),
      { abortSignal: options.signal },
    );
    return Item as ApiKeyRecord | undefined;
  }

  /** The record with this public id, or `undefined`. */
  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: KEY_ID_INDEX,
        KeyConditionExpression: 'keyId = :keyId',
        ExpressionAttributeValues: { ':keyId': keyId },
      }),
    );
    return Items[0] as ApiKeyRecord | undefined;
  }

  /** Every key, oldest first. Reads the whole table: an ops command, not a request path. */
  async listKeys(): Promise<ApiKeyRecord[]> {
    const records: ApiKeyRecord[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.client.send(
        new ScanCommand({ TableName: this.tableName, ExclusiveStartKey }),
      );
      records.push(...((page.Items ?? []) as ApiKeyRecord[]));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /**
   * Moves a key to `plan` (any plan to any plan, Enterprise to Enterprise with new limits) in one
   * conditional UpdateItem: the plan is set, and `perMinute`/`perDay` are set for Enterprise or
   * removed for a standard plan. Requests see the change when the authorizer's cached result for
   * the key expires (`AUTHORIZER_CACHE_TTL_SECONDS`, 60 s).
   *
   * @param limits An Enterprise key's own limits (required for Enterprise, refused otherwise).
   * @returns The record before and after the change, or `undefined` when no key has this id.
   * @throws RangeError when `limits` do not fit the plan (see `validateLimits`); nothing is changed.
   */
  async setPlan(
    keyId: string,
    plan: PlanId,
    limits?: RequestLimits,
  ): Promise<{ previous: ApiKeyRecord; record: ApiKeyRecord } | undefined> {
    const own = customLimits(plan, limits);
    const found = await this.findById(keyId);
    if (!found) return undefined;
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { keyHash: found.keyHash },
          UpdateExpression: own
            ? 'SET #plan = :plan, #perMinute = :perMinute, #perDay = :perDay'
            : 'SET #plan = :plan REMOVE #perMinute, #perDay',
          // Without it, UpdateItem would create a stray item if the key were gone.
          ConditionExpression: 'attribute_exists(#keyHash)',
          ExpressionAttributeNames: {
            '#keyHash': 'keyHash',
            '#plan': 'plan',
            '#perMinute': 'perMinute',
            '#perDay': 'perDay',
          },
          ExpressionAttributeValues: {
            ':plan': plan,
            ...(own && { ':perMinute': own.perMinute, ':perDay': own.perDay }),
          },
          // The old item, read atomically with the write: what a caller restores to undo the move.
          ReturnValues: 'ALL_OLD',
        }),
      );
      const previous = Attributes as ApiKeyRecord;
      const { perMinute: _perMinute, perDay: _perDay, ...rest } = previous;
      return { previous, record: { ...rest, plan, ...own } };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw error;
    }
  }

  /**
   * Revokes a key; later requests with it get 401 once the authorizer's cache entry expires.
   *
   * @returns The revoked record, or `undefined` when no key has this id. Revoking twice keeps
   *   the first revocation time.
   */
  async revokeKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const record = await this.findById(keyId);
    if (!record) return undefined;
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { keyHash: record.keyHash },
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as ApiKeyRecord;
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
