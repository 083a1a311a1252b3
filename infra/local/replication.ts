/**
 * A model of DynamoDB global tables in their usual mode (multi-Region eventual consistency) for the
 * two-region local stack: each region's DynamoDB Local has its Streams read, and every change is
 * written to the other regions after a lag, last writer wins per item (docs/local-stack.md).
 *
 * How it follows global tables:
 * - asynchronous: a write is acknowledged by its own region only, and reaches the others
 *   `lagMs` after the model saw it in its region's stream (`REPLICATION_LAG_MS`, default 500 ms;
 *   AWS quotes about a second);
 * - last writer wins per item, by write time, whole items (a replicated write puts the whole new
 *   image or deletes the item); the loser is dropped silently in the table, as on AWS;
 * - a replicated write is not replicated back (no echo);
 * - pending writes of a region whose DynamoDB does not answer wait for it, as global tables keep
 *   the writes not yet propagated and send them once the region is back: what a region
 *   acknowledged within the lag before it failed is missing elsewhere until then (the RPO).
 *
 * Its limits, what real global tables do that it does not:
 * - write time is the moment the model read the change from its region's stream (it polls every
 *   `REPLICATION_POLL_MS`, 50 ms), not DynamoDB's own per-item timestamp: two writes of one item
 *   in two regions closer than that may be ordered otherwise than AWS would;
 * - it counts and lists conflicts (an item written in two regions within the lag, the loser
 *   dropped): AWS reports none, there is no such metric;
 * - TTL deletions: each DynamoDB Local expires its own items, and the removals its stream shows
 *   are replicated as deletes; AWS replicates the deletion of the region that expired the item
 *   and bills it as a replicated write; timing differs, the end state is the same;
 * - a stack stopped with changes not yet replicated loses them: at start the model reads each
 *   stream from its end (changes made while no model ran stay unreplicated), where AWS never
 *   forgets pending writes; a new table, index or TTL setting is not replicated (tables are
 *   created alike in every region by the stack); no replication metrics
 *   (`ReplicationLatency`, `PendingReplicationCount`), no strong mode (MRSC);
 * - it keeps the write time of every item written since it started, in memory (some 100 bytes
 *   an item): a stack meant for runs of hours, not months;
 * - a replicated write checks that the target item is the one it read a moment before (every
 *   attribute's value); a write in the target between that read and the replicated write that
 *   only adds attributes is overwritten, and the regions then differ on that item until its next
 *   write.
 */
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  TrimmedDataAccessException,
} from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { LocalCredentials } from '../../shared/dynamodb/clients.ts';
import { logger } from '../../shared/logger.ts';
import {
  canonical,
  type Delivery,
  deliveryOf,
  describeShards,
  echoKey,
  enableStream,
  inBatches,
  type RegionState,
  type ReplicaRegion,
  readItem,
  regionState,
  shardIterator,
  unchangedCondition,
} from './replication-regions.ts';

/** How often the model reads each region's streams and writes what is due, milliseconds. */
export const REPLICATION_POLL_MS = 50;

/** Options of {@link startReplication}. */
export interface ReplicationOptions {
  /** The regions, two or more, each with its own DynamoDB Local holding the same tables. */
  readonly regions: readonly ReplicaRegion[];
  /** Names of the tables to replicate (each exists in every region). */
  readonly tables: readonly string[];
  /** The stack's DynamoDB Local credentials. */
  readonly credentials: LocalCredentials;
  /** The lag, milliseconds (`REPLICATION_LAG_MS`). */
  readonly lagMs: number;
}

/** A conflict: an item written in two regions within the lag, the loser dropped. */
export interface ReplicationConflict {
  /** The table's name. */
  readonly table: string;
  /** The item's key, e.g. `{ pk: 'PET#7' }`. */
  readonly key: Record<string, unknown>;
  /** The region whose write stayed. */
  readonly winner: string;
  /** The region whose write was dropped. */
  readonly loser: string;
  /** When the loser was dropped, ISO 8601. */
  readonly at: string;
}

/** The model's figures, as `/__local/replication` serves them. */
export interface ReplicationFigures {
  /** The lag, milliseconds. */
  readonly lagMs: number;
  /** Writes applied to another region so far. */
  readonly replicated: number;
  /** Every conflict so far, oldest first. */
  readonly conflicts: readonly ReplicationConflict[];
  /** Writes seen and not yet applied to every other region. */
  readonly pending: number;
}

/** The running model. */
export interface Replication {
  /** Its figures now. */
  figures(): ReplicationFigures;
  /** Stops reading and writing; pending writes are dropped. */
  stop(): Promise<void>;
}

/**
 * Turns on Streams (new and old images) on every table of a region that has none, and starts the
 * model: it skips what the streams already hold, then replicates every later change.
 *
 * @throws Error (the SDK's) when a region's DynamoDB Local does not answer at start.
 */
export async function startReplication(options: ReplicationOptions): Promise<Replication> {
  const { lagMs } = options;
  const regions = options.regions.map((region) => regionState(region, options.credentials));
  /**
   * The write time of a change just read: now, made unique (a thousandth of a millisecond after
   * the last one at most), so that two changes of one item read at once keep their stream order
   * and no two writes tie.
   */
  let lastTime = 0;
  const writeTime = () => {
    lastTime = Math.max(Date.now(), lastTime + 0.001);
    return lastTime;
  };
  let replicated = 0;
  const conflicts: ReplicationConflict[] = [];
  let running = true;

  for (const region of regions) {
    for (const table of options.tables) await enableStream(region, table);
    await describeShards(region, options.tables, 'skip-history');
  }

  /** Reads one region's streams: each change its own write (not an echo) goes to the others. */
  const read = async (index: number, region: RegionState): Promise<void> => {
    if (region.resync) await describeShards(region, options.tables, 'resume');
    for (const cursor of region.shards.values()) {
      if (!cursor.iterator) continue;
      let answer: GetRecordsCommandOutput;
      try {
        answer = await region.streams.send(
          new GetRecordsCommand({ ShardIterator: cursor.iterator }),
        );
      } catch (error) {
        // DynamoDB Local's iterator of a shard that was empty when it was taken fails so.
        if (!(error instanceof TrimmedDataAccessException)) throw error;
        cursor.iterator = await shardIterator(region, cursor);
        continue;
      }
      const { Records = [], NextShardIterator } = answer;
      cursor.iterator = NextShardIterator;
      if (!NextShardIterator) {
        cursor.closed = true;
        region.resync = true;
      }
      for (const record of Records) {
        cursor.lastSequenceNumber = record.dynamodb?.SequenceNumber;
        const delivery = deliveryOf(record, cursor.table, writeTime(), index, lagMs);
        if (!delivery) continue;
        const echo = echoKey(delivery.table, delivery.itemKey, delivery.image);
        const echoes = region.echoes.get(echo);
        if (echoes) {
          if (echoes === 1) region.echoes.delete(echo);
          else region.echoes.set(echo, echoes - 1);
          continue;
        }
        region.stamps.set(`${delivery.table}|${delivery.itemKey}`, {
          time: delivery.time,
          origin: index,
        });
        for (const other of regions) if (other !== region) other.queue.push(delivery);
      }
    }
  };

  /**
   * Writes one item's due deliveries to a region, in order: each is dropped when the item's
   * value there is newer (a conflict when the loser's value differs), else written with a check
   * that the item is still the one read. @returns The deliveries still to write (on a failed check).
   */
  const write = async (
    region: RegionState,
    deliveries: readonly Delivery[],
    current: Record<string, AttributeValue> | undefined,
  ): Promise<Delivery[]> => {
    let value = current;
    for (const [position, delivery] of deliveries.entries()) {
      const stampKey = `${delivery.table}|${delivery.itemKey}`;
      const stamp = region.stamps.get(stampKey);
      // An equal time is this very write, applied in a round that failed after it.
      if (stamp && stamp.time >= delivery.time) {
        if (stamp.time > delivery.time && canonical(value) !== canonical(delivery.image)) {
          conflicts.push({
            table: delivery.table,
            key: unmarshall(delivery.key),
            winner: regions[stamp.origin]?.name ?? '',
            loser: regions[delivery.origin]?.name ?? '',
            at: new Date().toISOString(),
          });
        }
        continue;
      }
      if (canonical(value) !== canonical(delivery.image)) {
        const echo = echoKey(delivery.table, delivery.itemKey, delivery.image);
        try {
          const { table: TableName, image: Item, key: Key } = delivery;
          const condition = unchangedCondition(Key, value);
          await (Item
            ? region.dynamodb.send(new PutItemCommand({ TableName, Item, ...condition }))
            : region.dynamodb.send(new DeleteItemCommand({ TableName, Key, ...condition })));
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) {
            return deliveries.slice(position);
          }
          throw error;
        }
        region.echoes.set(echo, (region.echoes.get(echo) ?? 0) + 1);
        value = delivery.image;
      }
      region.stamps.set(stampKey, { time: delivery.time, origin: delivery.origin });
      replicated += 1;
    }
    return [];
  };

  /**
   * One round of a region: takes the deliveries due (those of regions that answer), reads their
   * items, reads the region's own streams (so that every write made here before those reads is
   * stamped), then writes them.
   */
  const round = async (index: number, region: RegionState): Promise<void> => {
    const now = Date.now();
    const due = region.queue.filter(
      (delivery) => delivery.due <= now && regions[delivery.origin]?.answering,
    );
    const byItem = new Map<string, Delivery[]>();
    for (const delivery of due) {
      const stampKey = `${delivery.table}|${delivery.itemKey}`;
      byItem.set(stampKey, [...(byItem.get(stampKey) ?? []), delivery]);
    }
    const items = [...byItem.values()];
    const current = await inBatches(items, ([first]) =>
      first ? readItem(region, first) : Promise.resolve(undefined),
    );
    await read(index, region);
    region.answering = true;
    const left = await inBatches(items, (deliveries, position) =>
      write(region, deliveries, current[position]),
    );
    const done = new Set(due);
    for (const delivery of left.flat()) done.delete(delivery);
    region.queue = region.queue.filter((delivery) => !done.has(delivery));
  };

  const loops = regions.map(async (region, index) => {
    let failing = false;
    while (running) {
      try {
        await round(index, region);
        if (failing) logger.info('Replication: region answers again', { region: region.name });
        failing = false;
      } catch (error) {
        region.answering = false;
        region.resync = true;
        if (!failing) {
          logger.warn('Replication: region does not answer; its writes wait', {
            region: region.name,
            error: (error as Error).message,
          });
        }
        failing = true;
      }
      await new Promise((wake) => setTimeout(wake, REPLICATION_POLL_MS));
    }
  });

  return {
    figures: () => ({
      lagMs,
      replicated,
      conflicts: [...conflicts],
      pending: regions.reduce((sum, region) => sum + region.queue.length, 0),
    }),
    stop: async () => {
      running = false;
      await Promise.all(loops);
      for (const region of regions) {
        region.dynamodb.destroy();
        region.streams.destroy();
      }
    },
  };
}
