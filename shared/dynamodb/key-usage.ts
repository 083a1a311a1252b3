/** Each key's usage per UTC day, from the limiter's items in every region. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { counterName, countsOf } from '../rate-limit/counter-item.ts';
import { sumOf } from '../rate-limit/cross-region-counts.ts';
import { instantAt, type KeyCounts } from '../rate-limit/decision.ts';
import { type DayUsage, everyName, lastUsedDay } from '../rate-limit/key-status.ts';
import { DEFAULT_SPREAD_POLICY, shardNames } from '../rate-limit/shards.ts';
import { type WindowBounds, windowAt } from '../rate-limit/windows.ts';
import { ONE_REGION, type Regions } from '../regions.ts';
import { batchGetItems } from './batch-get.ts';

// Where the keys command reads them.
export { type DayUsage, lastUsedDay };

/** Reads keys' daily usage from the counters table. */
export class DynamoDBKeyUsage {
  /** @param shards @default DEFAULT_SPREAD_POLICY.shards @param regions @default ONE_REGION */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly shards = DEFAULT_SPREAD_POLICY.shards,
    private readonly regions: Regions = ONE_REGION,
  ) {}

  /** The items of a key's day in every region: its day item and, if spread, its shards. */
  private namesOf(keyId: string, day: WindowBounds, spread: boolean): string[] {
    const names = [counterName(keyId, day), ...(spread ? shardNames(keyId, day, this.shards) : [])];
    return names.flatMap((name) => everyName(name, this.regions));
  }

  /**
   * Each key's usage on the `days` (up to `RETENTION_DAYS`) UTC days to the one holding `nowMs`.
   * @param spreadKeyIds Keys that may have counted on shards. @default none
   * @returns Per key id, one entry per day, newest first (no item: 0 and 0).
   */
  async dailyUsage(
    keyIds: readonly string[],
    days: number,
    nowMs: number,
    spreadKeyIds: ReadonlySet<string> = new Set(),
  ): Promise<Map<string, DayUsage[]>> {
    const { usage } = await this.read(keyIds, days, nowMs, spreadKeyIds);
    return new Map(keyIds.map((keyId) => [keyId, usage(keyId)]));
  }

  /**
   * One key's usage on `days` UTC days, newest first, and its counts now (this minute's and
   * today's, every region's and shard's summed; the latest ban): the same BatchGetItem calls.
   * @param spread Whether the key may have counted on shards (an Enterprise key).
   */
  async keyUsage(
    keyId: string,
    days: number,
    nowMs: number,
    spread: boolean,
  ): Promise<{ days: DayUsage[]; now: KeyCounts }> {
    const { usage, items, windows } = await this.read(
      [keyId],
      days,
      nowMs,
      new Set(spread ? [keyId] : []),
    );
    const [today] = windows;
    const counts = today
      ? this.namesOf(keyId, today, spread).map((name) => countsOf(items.get(name)))
      : [];
    return { days: usage(keyId), now: sumOf(counts, instantAt(nowMs)) };
  }

  /** The items of `days` days of each key (`batchGetItems`), and each key's usage per day. */
  private async read(
    keyIds: readonly string[],
    days: number,
    nowMs: number,
    spreadKeyIds: ReadonlySet<string>,
  ) {
    const windows = Array.from({ length: days }, (_, back) =>
      windowAt('day', nowMs - back * 86_400_000),
    );
    const names = keyIds.flatMap((keyId) =>
      windows.flatMap((day) => this.namesOf(keyId, day, spreadKeyIds.has(keyId))),
    );
    const read = await batchGetItems(
      this.client,
      this.tableName,
      names.map((name) => ({ name })),
      {
        projection: {
          expression: '#n, dayCount, dayRejected, minuteStart, minuteCount, bannedUntil',
          names: { '#n': 'name' },
        },
      },
    );
    const items = new Map(read.map((item) => [String(item.name), item]));
    const usageOf = (keyId: string, day: WindowBounds): DayUsage => {
      const sum = (names: string[], attribute: string) =>
        names.reduce((total, name) => total + Number(items.get(name)?.[attribute] ?? 0), 0);
      return {
        day: new Date(day.start * 1000).toISOString().slice(0, 10),
        admitted: sum(this.namesOf(keyId, day, spreadKeyIds.has(keyId)), 'dayCount'),
        refused: sum(everyName(counterName(keyId, day), this.regions), 'dayRejected'),
      };
    };
    const usage = (keyId: string) => windows.map((day) => usageOf(keyId, day));
    return { usage, items, windows };
  }
}
