/**
 * The RateLimiter on DynamoDB: both windows counted by conditional UpdateItems on a key's day item
 * (`counter-writes.ts`), or a hot key's shard items (`rate-limit/shards.ts`), and the ban. Its cost
 * and why it never over-admits: docs/rate-limits.md.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requiredSetting } from '../function-settings.ts';
import type { RequestLimits } from '../plans.ts';
import { counterName, daysUntil } from '../rate-limit/counter-item.ts';
import {
  admittedDecision,
  instantAt,
  type KeyCounts,
  NO_COUNTS,
  type RateLimitDecision,
  refusedDecision,
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
  openShard,
  ShardMemory,
  type SpreadPolicy,
  shardLimits,
  shardName,
  shardNames,
} from '../rate-limit/shards.ts';
import { ONE_REGION, type Regions, regionsOf } from '../regions.ts';
import { unlessUnavailable } from '../store-errors.ts';
import type { DynamoDBBase } from './base.ts';
import { CounterWrites, type CountRequest } from './counter-writes.ts';

/** Counts requests per key in the counters table and bans keys there. */
export class DynamoDBRateLimiter implements RateLimiter {
  /** This instance's memory of spread keys' shards, per minute of the requests' clock. */
  private readonly memory = new ShardMemory();
  private readonly writes: CounterWrites;

  /**
   * @param banPolicy @default DEFAULT_BAN_POLICY
   * @param spreadPolicy @default DEFAULT_SPREAD_POLICY
   * @param regions @default ONE_REGION
   */
  constructor(
    client: DynamoDBDocumentClient,
    tableName: string,
    private readonly banPolicy: BanPolicy = DEFAULT_BAN_POLICY,
    private readonly spreadPolicy: SpreadPolicy = DEFAULT_SPREAD_POLICY,
    regions: Regions = ONE_REGION,
  ) {
    this.writes = new CounterWrites(client, tableName, regions);
  }

  /** The limiter on `base`'s counters table, ban policy and regions. @throws Error: bad settings. */
  static from({ client, settings }: DynamoDBBase): DynamoDBRateLimiter {
    return new DynamoDBRateLimiter(
      client,
      requiredSetting(settings, 'COUNTERS_TABLE_NAME'),
      banPolicyOf(settings),
      DEFAULT_SPREAD_POLICY,
      regionsOf(settings),
    );
  }

  /** @throws StoreUnavailableError when the counters table fails or the signal aborts. */
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
    const write = await this.writes.countOn(request);
    if (write.outcome === 'admitted') return admittedDecision(write.all, limits, at);
    if (write.outcome === 'banned') {
      return refusedDecision(write.all, limits, at, write.all.bannedUntil);
    }
    const rejected = await this.writes.countRejection(request, write.counts);
    const bannedUntil = startsBan(rejected + write.others.rejected, this.banPolicy.threshold)
      ? await this.ban(request)
      : undefined;
    return refusedDecision(write.all, limits, at, bannedUntil);
  }

  /**
   * A spread key: count on a random shard not known to refuse this minute, the next when it refuses;
   * refuse when all have. Refusals and bans go on the key's day item, as for any key.
   */
  private async decideSpread(request: CountRequest): Promise<RateLimitDecision> {
    const { keyId, at, limits } = request;
    const { shards } = this.spreadPolicy;
    const known = this.memory.of(keyId, at.minute.start);
    const estimate = () => estimatedCounts(limits, this.spreadPolicy, known, at);
    const refused = () => refusedDecision(estimate(), limits, at, known.bannedUntil);
    if ((known.bannedUntil ?? 0) > at.nowSeconds) return refused();
    for (let shard = openShard(known, shards); shard !== undefined; ) {
      const name = shardName(keyId, at.day, shard);
      const quota = shardLimits(limits, shard, shards);
      const write = await this.writes.countOn({ ...request, name, limits: quota });
      if (write.outcome === 'admitted' || write.outcome === 'banned') {
        known.lastSeen = { shard, counts: write.all };
        if (write.outcome === 'admitted') return admittedDecision(estimate(), limits, at);
        known.bannedUntil = write.all.bannedUntil;
        return refused();
      }
      known.refused.set(shard, write.all);
      shard = openShard(known, shards);
    }
    // The refusal goes on the key's day item: this instance's first this minute starts the minute
    // there (or adds to it, if another request started it), the next add to it.
    const started = { ...NO_COUNTS, minuteStart: at.minute.start };
    const countRejection = (counts: KeyCounts) => this.writes.countRejection(request, counts);
    let rejected = await countRejection(known.rejectionCounted ? started : NO_COUNTS);
    if (rejected === 0) rejected = await countRejection(started);
    known.rejectionCounted = true;
    if (startsBan(rejected, this.banPolicy.threshold)) known.bannedUntil = await this.ban(request);
    return refused();
  }

  /**
   * Bans the key on every day item the ban touches (a spread key: then on their shards too); the
   * first ban written stands. @returns The end of the ban in force, epoch seconds.
   */
  private async ban(request: CountRequest): Promise<number> {
    const { keyId, at, limits } = request;
    const until = at.nowSeconds + this.banPolicy.durationSeconds;
    const shards = isSpread(limits, this.spreadPolicy) ? this.spreadPolicy.shards : 0;
    const ends = await Promise.all(
      daysUntil(at.nowSeconds * 1000, until).map(async (day) => {
        const end = await this.writes.banItem(request, counterName(keyId, day), day, until);
        if (end === until) {
          const names = shardNames(keyId, day, shards);
          await Promise.all(names.map((name) => this.writes.banItem(request, name, day, until)));
        }
        return end;
      }),
    );
    return ends[0] ?? until;
  }
}
