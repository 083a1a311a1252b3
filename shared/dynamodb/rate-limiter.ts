/**
 * The RateLimiter on DynamoDB: both fixed windows counted with conditional UpdateItems on one item
 * per key and UTC day of the counters table (`rate-limit/counter-item.ts`), or for a key past the spread
 * threshold on shard items with quotas (`rate-limit/shards.ts`), and the ban; the decision itself is
 * `rate-limit/decision.ts`. Cost per request and why it never over-admits: docs/rate-limits.md.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { RequestLimits } from '../plans.ts';
import { counterName, countsOf, daysUntil, expiry } from '../rate-limit/counter-item.ts';
import {
  admittedDecision,
  holdsMinute,
  instantAt,
  type KeyCounts,
  NO_COUNTS,
  type RateLimitDecision,
  type RequestInstant,
  refusedDecision,
  type Standing,
  standingOf,
  startsBan,
} from '../rate-limit/decision.ts';
import {
  type BanPolicy,
  banPolicyOf,
  DEFAULT_BAN_POLICY,
  type RateLimiter,
} from '../rate-limit/rate-limiter.ts';
import {
  DEFAULT_SPREAD_POLICY,
  estimatedCounts,
  isSpread,
  type KeyMinute,
  openShard,
  ShardMemory,
  type SpreadPolicy,
  shardLimits,
  shardName,
  shardNames,
} from '../rate-limit/shards.ts';
import type { WindowBounds } from '../rate-limit/windows.ts';
import { requiredSetting } from '../settings.ts';
import { unlessUnavailable } from '../store-errors.ts';
import type { DynamoDBBase } from './base.ts';

/** One request being counted: its key's item, instant, limits and abort signal. */
interface CountRequest {
  readonly keyId: string;
  readonly name: string;
  readonly at: RequestInstant;
  readonly limits: RequestLimits;
  readonly signal?: AbortSignal;
}

/** A counting write's outcome, and the counts after it (admitted) or as they stood (refused). */
interface CountWrite {
  readonly outcome: 'admitted' | Standing;
  readonly counts: KeyCounts;
}

/** The day has room for one more request (the day's count is absent on an item only a ban made). */
const DAY_HAS_ROOM = '(attribute_not_exists(dayCount) OR dayCount < :perDay)';
/** No ban is in force. */
const NOT_BANNED = '(attribute_not_exists(bannedUntil) OR bannedUntil <= :now)';
/** The stored minute is earlier than the request's, or there is none. */
const EARLIER_MINUTE = '(attribute_not_exists(minuteStart) OR minuteStart < :minute)';

/** Counts requests per key in the counters table and bans keys there. */
export class DynamoDBRateLimiter implements RateLimiter {
  /** This instance's memory of spread keys' shards, per minute of the requests' clock. */
  private readonly memory = new ShardMemory();

  /**
   * @param tableName The counters table (`COUNTERS_TABLE`).
   * @param banPolicy @default DEFAULT_BAN_POLICY
   * @param spreadPolicy @default DEFAULT_SPREAD_POLICY
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly banPolicy: BanPolicy = DEFAULT_BAN_POLICY,
    private readonly spreadPolicy: SpreadPolicy = DEFAULT_SPREAD_POLICY,
  ) {}

  /**
   * The limiter on `base`'s client, table `COUNTERS_TABLE_NAME` and ban policy.
   * @throws Error when the table's name is unset.
   */
  static from({ client, settings }: DynamoDBBase): DynamoDBRateLimiter {
    return new DynamoDBRateLimiter(
      client,
      requiredSetting(settings, 'COUNTERS_TABLE_NAME'),
      banPolicyOf(settings),
    );
  }

  /**
   * One conditional UpdateItem for an admitted request (see the module's header for the others).
   * @throws StoreUnavailableError when the counters table fails or the signal aborts.
   */
  consume(
    keyId: string,
    limits: RequestLimits,
    nowMs: number,
    signal?: AbortSignal,
  ): Promise<RateLimitDecision> {
    const at = instantAt(nowMs);
    const request: CountRequest = { keyId, name: counterName(keyId, at.day), at, limits, signal };
    return unlessUnavailable(() =>
      isSpread(limits, this.spreadPolicy) ? this.decideSpread(request) : this.decide(request),
    );
  }

  /** A key on one item: count there, exactly. */
  private async decide(request: CountRequest): Promise<RateLimitDecision> {
    const { at, limits } = request;
    const write = await this.countOn(request);
    if (write.outcome === 'admitted') return admittedDecision(write.counts, limits, at);
    if (write.outcome === 'banned') {
      return refusedDecision(write.counts, limits, at, write.counts.bannedUntil);
    }
    const rejected = await this.countRejection(request, write.counts);
    const bannedUntil = startsBan(rejected, this.banPolicy.threshold)
      ? await this.ban(request)
      : undefined;
    return refusedDecision(write.counts, limits, at, bannedUntil);
  }

  /**
   * A spread key: count on a shard picked at random among those not known to refuse this
   * minute, the next one when it refuses; refuse when every shard has. Refusals are counted
   * and bans started on the key's day item, as for any key.
   */
  private async decideSpread(request: CountRequest): Promise<RateLimitDecision> {
    const { keyId, at, limits } = request;
    const known = this.memory.of(keyId, at.minute.start);
    const estimate = () => estimatedCounts(limits, this.spreadPolicy, known, at);
    if (known.bannedUntil !== undefined && known.bannedUntil > at.nowSeconds) {
      return refusedDecision(estimate(), limits, at, known.bannedUntil);
    }
    const { shards } = this.spreadPolicy;
    for (let shard = openShard(known, shards); shard !== undefined; ) {
      const name = shardName(keyId, at.day, shard);
      const write = await this.countOn({
        ...request,
        name,
        limits: shardLimits(limits, shard, shards),
      });
      if (write.outcome === 'admitted' || write.outcome === 'banned') {
        known.lastSeen = { shard, counts: write.counts };
      }
      if (write.outcome === 'admitted') return admittedDecision(estimate(), limits, at);
      if (write.outcome === 'banned') {
        known.bannedUntil = write.counts.bannedUntil;
        return refusedDecision(estimate(), limits, at, known.bannedUntil);
      }
      known.refused.set(shard, write.counts);
      shard = openShard(known, shards);
    }
    const rejected = await this.countSpreadRejection(request, known);
    if (startsBan(rejected, this.banPolicy.threshold)) known.bannedUntil = await this.ban(request);
    return refusedDecision(estimate(), limits, at, known.bannedUntil);
  }

  /** Counts the request on the item `request.name`, in the stored minute or a new one. */
  private async countOn(request: CountRequest): Promise<CountWrite> {
    let write = await this.countInStoredMinute(request);
    if (write.outcome === 'new minute') {
      write = await this.countInNewMinute(request);
      // Another request started this minute first: count in the minute it started.
      if (write.outcome === 'open') write = await this.countInStoredMinute(request);
    }
    return write;
  }

  /** `ADD` the request to the day and to the stored minute, if that is the request's minute. */
  private countInStoredMinute(request: CountRequest): Promise<CountWrite> {
    const { at, limits } = request;
    return this.count(request, {
      UpdateExpression: 'ADD dayCount :one, minuteCount :one',
      ConditionExpression: `minuteStart >= :minute AND minuteCount < :perMinute AND ${DAY_HAS_ROOM} AND ${NOT_BANNED}`,
      ExpressionAttributeValues: {
        ':one': 1,
        ':minute': at.minute.start,
        ':perMinute': limits.perMinute,
        ':perDay': limits.perDay,
        ':now': at.nowSeconds,
      },
    });
  }

  /** Starts the request's minute with it (the stored one is earlier); creates the day's item. */
  private countInNewMinute(request: CountRequest): Promise<CountWrite> {
    const { at, limits } = request;
    return this.count(request, {
      UpdateExpression:
        'SET minuteStart = :minute, minuteCount = :one, rejected = :zero, expiresAt = if_not_exists(expiresAt, :expiresAt) ADD dayCount :one',
      ConditionExpression: `${EARLIER_MINUTE} AND ${DAY_HAS_ROOM} AND ${NOT_BANNED}`,
      ExpressionAttributeValues: {
        ':one': 1,
        ':zero': 0,
        ':minute': at.minute.start,
        ':perDay': limits.perDay,
        ':now': at.nowSeconds,
        ':expiresAt': expiry(at.day),
      },
    });
  }

  /** One UpdateItem on the counter item `name`; @returns the attributes `ReturnValues` asks for. */
  private async update(
    name: string,
    signal: AbortSignal | undefined,
    input: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
  ): Promise<Record<string, unknown> | undefined> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({ TableName: this.tableName, Key: { name }, ...input }),
      { abortSignal: signal },
    );
    return Attributes;
  }

  /** Sends one counting write; a refused condition is an outcome, not an error. */
  private async count(
    request: CountRequest,
    expression: Pick<
      UpdateCommandInput,
      'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeValues'
    >,
  ): Promise<CountWrite> {
    try {
      const attributes = await this.update(request.name, request.signal, {
        ...expression,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { outcome: 'admitted', counts: countsOf(attributes) };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const counts = countsOf(error.Item && unmarshall(error.Item));
      return { outcome: standingOf(counts, request.limits, request.at), counts };
    }
  }

  /**
   * Adds a refused request to the minute's `rejected` and the day's `dayRejected` (starting the
   * request's minute first when the stored one is earlier).
   * @returns The minute's rejected count with this request; 0 when another request started the
   *   minute meanwhile (the refusal goes uncounted: that can only delay a ban).
   */
  private async countRejection(request: CountRequest, counts: KeyCounts): Promise<number> {
    const { at } = request;
    const expression = holdsMinute(counts, at.minute)
      ? {
          UpdateExpression: 'ADD rejected :one, dayRejected :one',
          ExpressionAttributeValues: { ':one': 1 },
        }
      : {
          UpdateExpression:
            'SET minuteStart = :minute, minuteCount = :zero, rejected = :one ADD dayRejected :one',
          ConditionExpression: EARLIER_MINUTE,
          ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':minute': at.minute.start },
        };
    try {
      const attributes = await this.update(request.name, request.signal, {
        ...expression,
        ReturnValues: 'UPDATED_NEW',
      });
      return Number(attributes?.rejected);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return 0;
    }
  }

  /**
   * A spread key's refusal on its day item, whose minute this instance knows only once it has
   * counted a refusal there this minute: it tries to start the minute, and adds to it when
   * another request started it first. @returns The minute's rejected count with this request.
   */
  private async countSpreadRejection(request: CountRequest, known: KeyMinute): Promise<number> {
    const started = { ...NO_COUNTS, minuteStart: request.at.minute.start };
    let rejected = await this.countRejection(request, known.rejectionCounted ? started : NO_COUNTS);
    if (rejected === 0) rejected = await this.countRejection(request, started);
    known.rejectionCounted = true;
    return rejected;
  }

  /**
   * Bans the key for the policy's duration on every day item the ban touches, and on a spread
   * key's shard items of those days once its day item took the ban; the first ban written
   * stands. @returns The end of the ban in force, epoch seconds.
   */
  private async ban(request: CountRequest): Promise<number> {
    const { keyId, at, limits } = request;
    const until = at.nowSeconds + this.banPolicy.durationSeconds;
    const { shards } = this.spreadPolicy;
    const spread = isSpread(limits, this.spreadPolicy);
    const ends = await Promise.all(
      daysUntil(at.nowSeconds * 1000, until).map(async (day) => {
        const end = await this.banItem(request, counterName(keyId, day), day, until);
        if (spread && end === until) {
          await Promise.all(
            shardNames(keyId, day, shards).map((name) => this.banItem(request, name, day, until)),
          );
        }
        return end;
      }),
    );
    return ends[0] ?? until;
  }

  /** Writes the ban on one item unless one is in force there. @returns The ban in force. */
  private async banItem(
    { at, signal }: CountRequest,
    name: string,
    day: WindowBounds,
    until: number,
  ): Promise<number> {
    try {
      await this.update(name, signal, {
        UpdateExpression:
          'SET bannedUntil = :until, expiresAt = if_not_exists(expiresAt, :expiresAt)',
        ConditionExpression: NOT_BANNED,
        ExpressionAttributeValues: {
          ':until': until,
          ':now': at.nowSeconds,
          ':expiresAt': expiry(day),
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return until;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) || !error.Item) throw error;
      return Number(unmarshall(error.Item).bannedUntil);
    }
  }
}
