/**
 * The keys command's view of rate-limit bans: whether a key is banned in any region, and lifting
 * the bans of its own region's items (the only ones it writes; docs/rate-limits.md).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { counterName, countsOf, daysUntil } from '../rate-limit/counter-item.ts';
import { activeBan, instantAt } from '../rate-limit/decision.ts';
import { DEFAULT_SPREAD_POLICY, shardNames } from '../rate-limit/shards.ts';
import { windowAt } from '../rate-limit/windows.ts';
import { everyName, ONE_REGION, type Regions, regionalName } from '../regions.ts';

/** What `keys list` shows of a key's ban. */
export interface BanState {
  /** Epoch seconds at which the ban ends. */
  readonly bannedUntil: number;
}

/** Reads and lifts the bans the rate limiter keeps in the counters table. */
export class DynamoDBRateLimitBans {
  /**
   * @param tableName The counters table (`COUNTERS_TABLE`).
   * @param shards Shard items per spread key and day, whose bans `unban` lifts too.
   *   @default DEFAULT_SPREAD_POLICY.shards
   * @param regions The stage's regions and the command's. @default ONE_REGION
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly shards = DEFAULT_SPREAD_POLICY.shards,
    private readonly regions: Regions = ONE_REGION,
  ) {}

  /** The key's latest ban in force at `nowMs` (epoch ms) in any region (a consistent GetItem each), or `undefined`. */
  async banState(keyId: string, nowMs: number): Promise<BanState | undefined> {
    const at = instantAt(nowMs);
    const ends = await Promise.all(
      everyName(counterName(keyId, at.day), this.regions).map(async (name) => {
        const { Item } = await this.client.send(
          new GetCommand({ TableName: this.tableName, Key: { name }, ConsistentRead: true }),
        );
        return activeBan(countsOf(Item), at) ?? 0;
      }),
    );
    const bannedUntil = Math.max(...ends);
    return bannedUntil === 0 ? undefined : { bannedUntil };
  }

  /**
   * Lifts the key's ban from every item of this region it covers (docs/rate-limits.md).
   * @returns The ban that was lifted, or `undefined` when the key was not banned.
   */
  async unban(keyId: string, nowMs: number): Promise<BanState | undefined> {
    const ban = await this.banState(keyId, nowMs);
    const days = ban ? daysUntil(nowMs, ban.bannedUntil) : [windowAt('day', nowMs)];
    const names = days.flatMap((day) => [
      counterName(keyId, day),
      ...(ban ? shardNames(keyId, day, this.shards) : []),
    ]);
    await Promise.all(names.map((name) => this.clearBan(regionalName(name, this.regions))));
    return ban;
  }

  /** Removes `bannedUntil` and `rejected` from an item, if the item exists. */
  private async clearBan(name: string): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { name },
          UpdateExpression: 'REMOVE bannedUntil, rejected',
          ConditionExpression: 'attribute_exists(#name)',
          ExpressionAttributeNames: { '#name': 'name' },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}
