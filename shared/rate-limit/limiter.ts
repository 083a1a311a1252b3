/**
 * Per-key rate limiting on DynamoDB (petstore-spec.md, "Limits"): two fixed windows aligned to
 * UTC (the minute and the day), counted atomically in the counters table, and the temporary ban
 * of a key that keeps sending after its 429s.
 *
 * Items of the counters table (partition key `name`), each expiring through TTL on `expiresAt`:
 *
 * - `rate#<keyId>#minute#<YYYY-MM-DDTHH:MM>`: `count` (admitted requests), `rejected`
 *   (requests answered 429 in this minute, for the ban);
 * - `rate#<keyId>#day#<YYYY-MM-DD>`: `count`, and `bannedUntil` (epoch seconds) while banned.
 *
 * An admitted request costs exactly two writes, sent in parallel: one conditional UpdateItem
 * (`ADD count 1` only while `count < limit`) per window. The day's condition also refuses while
 * `bannedUntil` lies ahead, so the ban check costs no extra call. A conditional ADD is atomic, so
 * across any number of Lambdas a window never admits more than its limit. A rejected request undoes
 * the count it did get, if any, and adds itself to the minute's `rejected`; until the undo lands a
 * concurrent request near the other window's limit may be refused (under-admission, never over).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { RequestLimits } from '../plans.ts';
import { type WindowBounds, windowAt } from './windows.ts';

/**
 * When a key is banned: after more than `threshold` rejected (429) requests in one UTC minute, for
 * `durationSeconds` (petstore-spec.md, "Exceeding the limit", 3).
 */
export interface BanPolicy {
  /** Rejected requests a key may send in one minute window without being banned. */
  readonly threshold: number;
  /** Length of a ban, in seconds. */
  readonly durationSeconds: number;
}

/**
 * 50 rejected requests in one minute, then a 15-minute ban. A client that honours `Retry-After`
 * gets one 429 per worker at most; a retry loop passes 50 within a second or two. The threshold sits
 * below every standard plan's per-minute figure, so the ban is reached before the usage plan's
 * burst (twice the per-minute figure) throttles the key at the edge, where requests are no longer
 * seen by the functions.
 */
export const DEFAULT_BAN_POLICY: BanPolicy = { threshold: 50, durationSeconds: 900 };

/** Where a key stands in one window after a request was counted or refused. */
export interface WindowUsage extends WindowBounds {
  /** The window's limit, in requests. */
  readonly limit: number;
  /** Requests left in the window, never negative; 0 while the key is banned (minute window). */
  readonly remaining: number;
}

/** The limiter's verdict on one request. */
export interface RateLimitDecision {
  readonly admitted: boolean;
  readonly minute: WindowUsage;
  readonly day: WindowUsage;
  /**
   * The window the client should go by: for an admitted request the minute, unless the day has
   * fewer requests left; for a refused one the exhausted window that resets last.
   */
  readonly binding: WindowUsage;
  /** Epoch seconds at which the key's ban ends, when the request was refused because of a ban. */
  readonly bannedUntil?: number;
}

/** Outcome of one conditional count: the count after it, or the item as it stood when refused. */
type CountResult =
  | { readonly counted: true; readonly count: number }
  | { readonly counted: false; readonly count: number; readonly bannedUntil?: number };

/** What `keys list` shows of a key's ban. */
export interface BanState {
  /** Epoch seconds at which the ban ends. */
  readonly bannedUntil: number;
}

/** Attribute names of the counter items. */
const ATTRIBUTE_NAMES = {
  '#count': 'count',
  '#expiresAt': 'expiresAt',
};

/** Counter items outlive their window by this much (seconds) before TTL removes them, for inspection. */
const RETENTION_SECONDS = 86_400;

/** Counts requests per key in the counters table and keeps bans there. */
export class DynamoDBRateLimiter {
  /**
   * @param client Document client (DynamoDB or DynamoDB Local).
   * @param tableName The counters table (`COUNTERS_TABLE`).
   * @param banPolicy @default DEFAULT_BAN_POLICY
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly banPolicy: BanPolicy = DEFAULT_BAN_POLICY,
  ) {}

  /**
   * Counts one request against the key's current minute and day windows.
   *
   * Windows are fixed and aligned to UTC (minute: 60 s, day: 86 400 s). Both counters are
   * incremented atomically, so concurrent Lambdas never over-admit. A refused request is counted
   * towards the ban; the request that goes past the policy's threshold starts the ban.
   *
   * @param keyId Id of the API key (not the token).
   * @param limits The key's requests per minute and per day.
   * @param nowMs Current time in epoch milliseconds; injected for tests.
   * @param signal Cuts every DynamoDB call of this request short when it aborts.
   * @returns The decision, with both windows and the binding one.
   * @throws The DynamoDB client's error when the counters table cannot be reached or the signal
   *   aborts (the caller decides the fault policy).
   * @see petstore-spec.md, section "Limits".
   */
  async consume(
    keyId: string,
    limits: RequestLimits,
    nowMs: number,
    signal?: AbortSignal,
  ): Promise<RateLimitDecision> {
    const minute = windowAt('minute', nowMs);
    const day = windowAt('day', nowMs);
    const nowSeconds = Math.floor(nowMs / 1000);
    const [minuteCount, dayCount] = await Promise.all([
      this.count(signal, counterName(keyId, minute), minute, limits.perMinute),
      this.count(signal, counterName(keyId, day), day, limits.perDay, nowSeconds),
    ]);
    if (minuteCount.counted && dayCount.counted) {
      return decide(
        usage(minute, limits.perMinute, minuteCount.count),
        usage(day, limits.perDay, dayCount.count),
        true,
      );
    }

    const activeBan =
      !dayCount.counted && (dayCount.bannedUntil ?? 0) > nowSeconds
        ? dayCount.bannedUntil
        : undefined;
    const [rejected] = await Promise.all([
      this.undoMinute(signal, keyId, minute, minuteCount.counted, activeBan === undefined),
      dayCount.counted ? this.add(signal, counterName(keyId, day), { '#count': -1 }) : undefined,
    ]);
    const bannedUntil =
      activeBan ??
      (rejected !== undefined && rejected > this.banPolicy.threshold
        ? await this.ban(signal, keyId, nowSeconds)
        : undefined);
    const minuteUsage = usage(
      minute,
      limits.perMinute,
      minuteCount.counted ? minuteCount.count - 1 : minuteCount.count,
    );
    const dayUsage = usage(
      day,
      limits.perDay,
      dayCount.counted ? dayCount.count - 1 : dayCount.count,
    );
    return decide(
      bannedUntil === undefined
        ? minuteUsage
        : { ...minuteUsage, remaining: 0, resetAt: Math.max(minute.resetAt, bannedUntil) },
      dayUsage,
      false,
      bannedUntil,
    );
  }

  /**
   * The key's ban, if one is in force at `nowMs`.
   *
   * @returns The ban's end, or `undefined` when the key is not banned.
   */
  async banState(keyId: string, nowMs: number): Promise<BanState | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { name: counterName(keyId, windowAt('day', nowMs)) },
        ConsistentRead: true,
      }),
    );
    const bannedUntil = Item?.bannedUntil as number | undefined;
    return bannedUntil !== undefined && bannedUntil > nowMs / 1000 ? { bannedUntil } : undefined;
  }

  /**
   * Lifts the key's ban, if any, and clears the current minute's rejected count, so that the key
   * starts afresh (`npm run keys -- unban`).
   *
   * @returns The ban that was lifted, or `undefined` when the key was not banned.
   */
  async unban(keyId: string, nowMs: number): Promise<BanState | undefined> {
    const ban = await this.banState(keyId, nowMs);
    const days = ban ? daysUntil(nowMs, ban.bannedUntil) : [windowAt('day', nowMs)];
    await Promise.all([
      ...days.map((day) => this.clear(counterName(keyId, day), 'bannedUntil')),
      this.clear(counterName(keyId, windowAt('minute', nowMs)), 'rejected'),
    ]);
    return ban;
  }

  /**
   * `ADD count 1` on a window's item while `count < limit` (and, with `nowSeconds`, while no ban
   * is in force), creating the item with its TTL on first use.
   */
  private async count(
    signal: AbortSignal | undefined,
    name: string,
    window: WindowBounds,
    limit: number,
    nowSeconds?: number,
  ): Promise<CountResult> {
    const underLimit = '(attribute_not_exists(#count) OR #count < :limit)';
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { name },
          UpdateExpression:
            'ADD #count :one SET #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
          ConditionExpression:
            nowSeconds === undefined
              ? underLimit
              : `${underLimit} AND (attribute_not_exists(#bannedUntil) OR #bannedUntil <= :now)`,
          ExpressionAttributeNames:
            nowSeconds === undefined
              ? ATTRIBUTE_NAMES
              : { ...ATTRIBUTE_NAMES, '#bannedUntil': 'bannedUntil' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': limit,
            ':expiresAt': expiry(window),
            ...(nowSeconds === undefined ? {} : { ':now': nowSeconds }),
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
        { abortSignal: signal },
      );
      return { counted: true, count: Number(Attributes?.count) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const item = error.Item ? unmarshall(error.Item) : {};
      return {
        counted: false,
        count: Number(item.count ?? 0),
        bannedUntil: item.bannedUntil === undefined ? undefined : Number(item.bannedUntil),
      };
    }
  }

  /**
   * After a refusal: takes back the minute's count if this request got one, and adds the request
   * to the minute's `rejected` unless it was refused because of a ban (one write, or none).
   *
   * @returns The minute's rejected count, when it was incremented.
   */
  private async undoMinute(
    signal: AbortSignal | undefined,
    keyId: string,
    minute: WindowBounds,
    counted: boolean,
    countRejection: boolean,
  ): Promise<number | undefined> {
    if (!counted && !countRejection) return undefined;
    const attributes = await this.add(signal, counterName(keyId, minute), {
      ...(counted ? { '#count': -1 } : {}),
      ...(countRejection ? { '#rejected': 1 } : {}),
    });
    return countRejection ? Number(attributes.rejected) : undefined;
  }

  /** Unconditional `ADD` of each delta; returns the updated attributes. */
  private async add(
    signal: AbortSignal | undefined,
    name: string,
    deltas: Readonly<Record<`#${string}`, number>>,
  ): Promise<Record<string, unknown>> {
    const entries = Object.entries(deltas);
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { name },
        UpdateExpression: `ADD ${entries.map(([attribute], i) => `${attribute} :d${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([a]) => [a, a.slice(1)])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, d], i) => [`:d${i}`, d])),
        ReturnValues: 'UPDATED_NEW',
      }),
      { abortSignal: signal },
    );
    return Attributes ?? {};
  }

  /**
   * Bans the key from `nowSeconds` for the policy's duration, on every day item the ban touches.
   * Concurrent requests past the threshold race; the first ban written stands.
   *
   * @returns The end of the ban in force, epoch seconds.
   */
  private async ban(
    signal: AbortSignal | undefined,
    keyId: string,
    nowSeconds: number,
  ): Promise<number> {
    const until = nowSeconds + this.banPolicy.durationSeconds;
    const ends = await Promise.all(
      daysUntil(nowSeconds * 1000, until).map(async (day) => {
        try {
          await this.client.send(
            new UpdateCommand({
              TableName: this.tableName,
              Key: { name: counterName(keyId, day) },
              UpdateExpression:
                'SET #bannedUntil = :until, #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
              ConditionExpression: 'attribute_not_exists(#bannedUntil) OR #bannedUntil <= :now',
              ExpressionAttributeNames: {
                '#bannedUntil': 'bannedUntil',
                '#expiresAt': 'expiresAt',
              },
              ExpressionAttributeValues: {
                ':until': until,
                ':now': nowSeconds,
                ':expiresAt': expiry(day),
              },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            }),
            { abortSignal: signal },
          );
          return until;
        } catch (error) {
          if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
          return Number(unmarshall(error.Item).bannedUntil);
        }
      }),
    );
    return ends[0] ?? until;
  }

  /** Removes one attribute from an item, if the item exists. */
  private async clear(name: string, attribute: 'bannedUntil' | 'rejected'): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { name },
          UpdateExpression: 'REMOVE #attribute',
          ConditionExpression: 'attribute_exists(#name)',
          ExpressionAttributeNames: { '#attribute': attribute, '#name': 'name' },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

/** Partition key of a key's counter item for one window, e.g. `rate#key_1#minute#2026-11-21T10:30`. */
export function counterName(keyId: string, window: WindowBounds): string {
  const iso = new Date(window.start * 1000).toISOString();
  return `rate#${keyId}#${window.name}#${window.name === 'day' ? iso.slice(0, 10) : iso.slice(0, 16)}`;
}

/** TTL of a window's item: the window's end plus the retention, epoch seconds. */
function expiry(window: WindowBounds): number {
  return window.resetAt + RETENTION_SECONDS;
}

/** The day windows from the one holding `nowMs` to the one holding `untilSeconds`. */
function daysUntil(nowMs: number, untilSeconds: number): WindowBounds[] {
  const days = [windowAt('day', nowMs)];
  for (let day = days[0]; day && day.resetAt <= untilSeconds; ) {
    day = windowAt('day', day.resetAt * 1000);
    days.push(day);
  }
  return days;
}

function usage(window: WindowBounds, limit: number, count: number): WindowUsage {
  return { ...window, limit, remaining: Math.max(0, limit - count) };
}

function decide(
  minute: WindowUsage,
  day: WindowUsage,
  admitted: boolean,
  bannedUntil?: number,
): RateLimitDecision {
  const exhausted = [minute, day].filter((window) => window.remaining === 0);
  const binding = admitted
    ? day.remaining < minute.remaining
      ? day
      : minute
    : exhausted.reduce((a, b) => (b.resetAt > a.resetAt ? b : a), exhausted[0] ?? minute);
  return { admitted, minute, day, binding, bannedUntil };
}
