/** The limiter's writes (count, refusal, ban) on this region's counter items; others' are read. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { RequestLimits } from '../plans.ts';
import { countsOf, expiry } from '../rate-limit/counter-item.ts';
import { roomLeft, standingAcross, sumOf } from '../rate-limit/cross-region-counts.ts';
import {
  holdsMinute,
  type KeyCounts,
  NO_COUNTS,
  type RequestInstant,
  type Standing,
  standingOf,
} from '../rate-limit/decision.ts';
import type { WindowBounds } from '../rate-limit/windows.ts';
import { othersNames, type Regions, regionalName } from '../regions.ts';

/** One request being counted: its key's item (named as in one region), instant, limits, signal. */
export interface CountRequest {
  readonly keyId: string;
  readonly name: string;
  readonly at: RequestInstant;
  readonly limits: RequestLimits;
  readonly signal?: AbortSignal;
}

/** A count's outcome; this region's counts after it or as they stood, the others', their sum. */
export interface CountWrite {
  readonly outcome: 'admitted' | Standing;
  readonly counts: KeyCounts;
  readonly others: KeyCounts;
  readonly all: KeyCounts;
}

/** What a counting write on this region's item alone comes to. */
type OwnWrite = Pick<CountWrite, 'outcome' | 'counts'>;

/** The day has room for one more request (the day's count is absent on an item only a ban made). */
const DAY_HAS_ROOM = '(attribute_not_exists(dayCount) OR dayCount < :perDay)';
const NOT_BANNED = '(attribute_not_exists(bannedUntil) OR bannedUntil <= :now)';
const EARLIER_MINUTE = '(attribute_not_exists(minuteStart) OR minuteStart < :minute)';

/** The counting, refusal and ban writes of one region on the counters table. */
export class CounterWrites {
  /** The other regions' counts of each item (named by day) as last read; cleared past 10,000. */
  private readonly othersSeen = new Map<string, KeyCounts>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly regions: Regions,
  ) {}

  /** Counts on this region's item, within the room the others' last counts leave, beside a read of theirs. */
  async countOn(request: CountRequest): Promise<CountWrite> {
    const { name, at, limits } = request;
    const room = roomLeft(limits, this.othersSeen.get(name) ?? NO_COUNTS, at);
    const [own, others] = await Promise.all([
      this.countOwn({ ...request, limits: room }),
      this.readOthers(request),
    ]);
    const outcome = standingAcross(own.outcome, all(own.counts), others, limits, at);
    // Counted here on stale counts of the others, refused on fresh ones: take it back (rare).
    const counts =
      own.outcome === 'admitted' && outcome !== 'admitted'
        ? await this.uncount(request)
        : own.counts;
    return { outcome, counts, others, all: all(counts) };

    function all(counts: KeyCounts): KeyCounts {
      return sumOf([counts, others], at);
    }
  }

  /** Takes back a request counted on this region's item. @returns The counts after it. */
  private async uncount({ name, signal }: CountRequest): Promise<KeyCounts> {
    const attributes = await this.update(name, signal, {
      UpdateExpression: 'ADD dayCount :minus, minuteCount :minus',
      ExpressionAttributeValues: { ':minus': -1 },
      ReturnValues: 'ALL_NEW',
    });
    return countsOf(attributes);
  }

  /** The other regions' items of `request.name`, summed (eventually consistent GetItems). */
  private async readOthers({ name, at, signal }: CountRequest): Promise<KeyCounts> {
    const names = othersNames(name, this.regions);
    if (names.length === 0) return NO_COUNTS;
    const items = await Promise.all(
      names.map(async (other) => {
        const { Item } = await this.client.send(
          new GetCommand({ TableName: this.tableName, Key: { name: other } }),
          { abortSignal: signal },
        );
        return countsOf(Item);
      }),
    );
    const others = sumOf(items, at);
    if (this.othersSeen.size >= 10_000) this.othersSeen.clear();
    this.othersSeen.set(name, others);
    return others;
  }

  /**
   * Counts on this region's item: `ADD`s the request to the day and the stored minute if that is
   * the request's minute; else starts its minute with it (and creates the day's item).
   */
  private async countOwn(request: CountRequest): Promise<OwnWrite> {
    const { at, limits } = request;
    const values = {
      ':one': 1,
      ':minute': at.minute.start,
      ':perDay': limits.perDay,
      ':now': at.nowSeconds,
    };
    const inStoredMinute = () =>
      this.count(request, {
        UpdateExpression: 'ADD dayCount :one, minuteCount :one',
        ConditionExpression: `minuteStart >= :minute AND minuteCount < :perMinute AND ${DAY_HAS_ROOM} AND ${NOT_BANNED}`,
        ExpressionAttributeValues: { ...values, ':perMinute': limits.perMinute },
      });
    let write = await inStoredMinute();
    if (write.outcome === 'new minute') {
      write = await this.count(request, {
        UpdateExpression:
          'SET minuteStart = :minute, minuteCount = :one, rejected = :zero, expiresAt = if_not_exists(expiresAt, :expiresAt) ADD dayCount :one',
        ConditionExpression: `${EARLIER_MINUTE} AND ${DAY_HAS_ROOM} AND ${NOT_BANNED}`,
        ExpressionAttributeValues: { ...values, ':zero': 0, ':expiresAt': expiry(at.day) },
      });
      // Another request started this minute first: count in the minute it started.
      if (write.outcome === 'open') write = await inStoredMinute();
    }
    return write;
  }

  /** One UpdateItem on this region's item of `name`, the only items it writes. */
  private async update(
    name: string,
    signal: AbortSignal | undefined,
    input: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
  ): Promise<Record<string, unknown> | undefined> {
    const Key = { name: regionalName(name, this.regions) };
    const { Attributes } = await this.client.send(
      new UpdateCommand({ TableName: this.tableName, Key, ...input }),
      { abortSignal: signal },
    );
    return Attributes;
  }

  /** Sends one counting write; a refused condition is an outcome, not an error. */
  private async count(
    request: CountRequest,
    expression: Omit<UpdateCommandInput, 'TableName' | 'Key'>,
  ): Promise<OwnWrite> {
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
   * Adds a refusal to `rejected` and `dayRejected`, starting the request's minute if need be.
   * @returns The minute's rejected count with it; 0 when another request started the minute
   *   meanwhile (uncounted: that can only delay a ban).
   */
  async countRejection(request: CountRequest, counts: KeyCounts): Promise<number> {
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

  /** Writes the ban on one item unless one is in force there. @returns The ban in force. */
  async banItem(
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
