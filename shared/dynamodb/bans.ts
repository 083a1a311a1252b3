/** Rate-limit bans for the key service: a key's in any region, lifted on this region's items. */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AuditContext } from '../audit/entry.ts';
import { counterName, countsOf, daysUntil } from '../rate-limit/counter-item.ts';
import { activeBan, instantAt } from '../rate-limit/decision.ts';
import { type BanState, everyName } from '../rate-limit/key-status.ts';
import { DEFAULT_SPREAD_POLICY, shardNames } from '../rate-limit/shards.ts';
import { ONE_REGION, type Regions, regionalName } from '../regions.ts';
import type { DynamoDBAuditLog } from './audit-log.ts';

// Where the keys command reads it.
export type { BanState };

/** Reads and lifts the bans the rate limiter keeps in the counters table. */
export class DynamoDBRateLimitBans {
  /**
   * @param audit Where each lift's `key.unbanned` entry goes.
   * @param shards Shard items per spread key and day. @default DEFAULT_SPREAD_POLICY.shards
   * @param regions @default ONE_REGION
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly audit: DynamoDBAuditLog,
    private readonly shards = DEFAULT_SPREAD_POLICY.shards,
    private readonly regions: Regions = ONE_REGION,
  ) {}

  /** The key's latest ban in force at `nowMs` (epoch ms) in any region, or `undefined`. */
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
   * Lifts the key's ban from this region's items, in one transaction with its `key.unbanned` entry.
   * @returns The ban lifted, or `undefined` (not banned: nothing written).
   */
  async unban(keyId: string, nowMs: number, context: AuditContext): Promise<BanState | undefined> {
    const ban = await this.banState(keyId, nowMs);
    if (!ban) return undefined;
    const names = daysUntil(nowMs, ban.bannedUntil).flatMap((day) => [
      counterName(keyId, day),
      ...shardNames(keyId, day, this.shards),
    ]);
    const entry = this.audit.recorder(context)('key.unbanned', keyId, {
      bannedUntil: { before: new Date(ban.bannedUntil * 1000).toISOString() },
    });
    await this.clearBansWith(
      names.map((name) => regionalName(name, this.regions)),
      entry,
    );
    return ban;
  }

  /**
   * Removes `bannedUntil` and `rejected` from the items that exist, with `entry`: read first, as a
   * condition cannot skip a missing item (one created meanwhile keeps what it counts).
   */
  private async clearBansWith(
    names: readonly string[],
    entry: ReturnType<DynamoDBAuditLog['put']>,
  ): Promise<void> {
    const found = await Promise.all(
      names.map(async (name) => {
        const { Item } = await this.client.send(
          new GetCommand({ TableName: this.tableName, Key: { name }, ConsistentRead: true }),
        );
        return Item ? [name] : [];
      }),
    );
    await this.client.send(
      new TransactWriteCommand({
        TransactItems: [
          ...found.flat().map((name) => ({
            Update: {
              TableName: this.tableName,
              Key: { name },
              UpdateExpression: 'REMOVE bannedUntil, rejected',
              ConditionExpression: 'attribute_exists(#name)',
              ExpressionAttributeNames: { '#name': 'name' },
            },
          })),
          entry,
        ],
      }),
    );
  }
}
