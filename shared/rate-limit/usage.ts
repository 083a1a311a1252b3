/**
 * Each key's usage per UTC day (admitted, refused), read from the limiter's day items for the keys
 * command; nothing is written for it.
 */
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { counterName } from './counter-item.ts';
import { type WindowBounds, windowAt } from './windows.ts';

/** One key's requests on one UTC day. */
export interface DayUsage {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string;
  /** Requests admitted. */
  readonly admitted: number;
  /** Requests refused with 429 over a limit (those refused during a ban are not counted). */
  readonly refused: number;
}

/** Most keys BatchGetItem takes per call. */
const BATCH_SIZE = 100;

/** Reads keys' daily usage from the counters table. */
export class DynamoDBKeyUsage {
  /** @param tableName The counters table (`COUNTERS_TABLE`). */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Each key's usage on the `days` UTC days up to the one holding `nowMs` (BatchGetItem).
   * @param days Number of days, 1 to `RETENTION_DAYS`: older items are gone.
   * @param nowMs Epoch milliseconds.
   * @returns Per key id, one entry per day, newest first; a day without an item counts 0 and 0.
   */
  async dailyUsage(
    keyIds: readonly string[],
    days: number,
    nowMs: number,
  ): Promise<Map<string, DayUsage[]>> {
    const windows = Array.from({ length: days }, (_, back) =>
      windowAt('day', nowMs - back * 86_400_000),
    );
    const names = keyIds.flatMap((keyId) => windows.map((day) => counterName(keyId, day)));
    const items = new Map<string, Record<string, unknown>>();
    for (let start = 0; start < names.length; start += BATCH_SIZE) {
      let keys = names.slice(start, start + BATCH_SIZE).map((name) => ({ name }));
      while (keys.length > 0) {
        const { Responses, UnprocessedKeys } = await this.client.send(
          new BatchGetCommand({
            RequestItems: {
              [this.tableName]: {
                Keys: keys,
                ProjectionExpression: '#n, dayCount, dayRejected',
                ExpressionAttributeNames: { '#n': 'name' },
              },
            },
          }),
        );
        for (const item of Responses?.[this.tableName] ?? []) items.set(String(item.name), item);
        keys = (UnprocessedKeys?.[this.tableName]?.Keys ?? []) as { name: string }[];
      }
    }
    return new Map(
      keyIds.map((keyId) => [keyId, windows.map((day) => usageOf(items, keyId, day))]),
    );
  }
}

function usageOf(
  items: ReadonlyMap<string, Record<string, unknown>>,
  keyId: string,
  day: WindowBounds,
): DayUsage {
  const item = items.get(counterName(keyId, day));
  return {
    day: new Date(day.start * 1000).toISOString().slice(0, 10),
    admitted: Number(item?.dayCount ?? 0),
    refused: Number(item?.dayRejected ?? 0),
  };
}

/** The last day of `usage` (newest first) with any request, or `undefined`. */
export function lastUsedDay(usage: readonly DayUsage[]): string | undefined {
  return usage.find(({ admitted, refused }) => admitted + refused > 0)?.day;
}
