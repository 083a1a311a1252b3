/** The keys command's view of rate-limit bans: whether a key is banned, and lifting a ban. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { counterName, countsOf, daysUntil } from '../rate-limit/counter-item.ts';
import { activeBan, instantAt } from '../rate-limit/decision.ts';
import { DEFAULT_SPREAD_POLICY, shardNames } from '../rate-limit/shards.ts';
import { windowAt } from '../rate-limit/windows.ts';
import type { AuditPut } from './audit-log.ts';

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
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly shards = DEFAULT_SPREAD_POLICY.shards,
  ) {}

  /** The key's ban in force at `nowMs` (epoch ms; one consistent GetItem), or `undefined`. */
  async banState(keyId: string, nowMs: number): Promise<BanState | undefined> {
    const at = instantAt(nowMs);
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { name: counterName(keyId, at.day) },
        ConsistentRead: true,
      }),
    );
    const bannedUntil = activeBan(countsOf(Item), at);
    return bannedUntil === undefined ? undefined : { bannedUntil };
  }

  /**
   * Lifts the key's ban from every item it covers (docs/rate-limits.md).
   *
   * @param audit The audit entry of the lifted ban (the admin API): then the items that exist are
   *   cleared in one transaction with it, and a key that is not banned changes nothing.
   * @returns The ban that was lifted, or `undefined` when the key was not banned.
   */
  async unban(
    keyId: string,
    nowMs: number,
    audit?: (ban: BanState) => AuditPut,
  ): Promise<BanState | undefined> {
    const ban = await this.banState(keyId, nowMs);
    if (audit && !ban) return undefined;
    const days = ban ? daysUntil(nowMs, ban.bannedUntil) : [windowAt('day', nowMs)];
    const names = days.flatMap((day) => [
      counterName(keyId, day),
      ...(ban ? shardNames(keyId, day, this.shards) : []),
    ]);
    if (audit && ban) {
      await this.clearBansWith(names, audit(ban));
      return ban;
    }
    await Promise.all(names.map((name) => this.clearBan(name)));
    return ban;
  }

  /**
   * Removes `bannedUntil` and `rejected` from those of the items that exist, in one transaction
   * with `entry` (a TransactWriteItems condition cannot skip a missing item, so they are read
   * first; an item created meanwhile cancels nothing and keeps what it counts).
   */
  private async clearBansWith(names: readonly string[], entry: AuditPut): Promise<void> {
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
