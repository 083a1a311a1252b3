/**
 * The regions as the model of global tables sees them (replication.ts): the state it keeps per
 * region, and its calls on a region's DynamoDB Local and Streams.
 */
import {
  type AttributeValue,
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  type PutItemCommandInput,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams';
import { LOCAL_REGION, type LocalCredentials } from '../../shared/dynamodb/clients.ts';

/** One region of the model: its name and its DynamoDB Local. */
export interface ReplicaRegion {
  /** Region name, e.g. `us-east-1`. */
  readonly name: string;
  /** Its DynamoDB Local, e.g. `http://127.0.0.1:8000`. */
  readonly endpoint: string;
}

/** How many items of one region the model writes at once. */
const WRITE_CONCURRENCY = 16;

/** A write seen in one region, on its way to another. */
export interface Delivery {
  readonly table: string;
  /** The item's key, canonical JSON of its attribute values. */
  readonly itemKey: string;
  readonly key: Record<string, AttributeValue>;
  /** The whole new item, or `undefined` for a delete. */
  readonly image: Record<string, AttributeValue> | undefined;
  /** Write time, epoch milliseconds. */
  readonly time: number;
  /** Its region's index. */
  readonly origin: number;
  /** When it is due in the target, epoch milliseconds. */
  readonly due: number;
}

/** Who wrote an item's current value in one region, and when. */
export interface Stamp {
  readonly time: number;
  readonly origin: number;
}

/** A stream shard being read: where the model is in it. */
export interface ShardCursor {
  readonly streamArn: string;
  readonly shardId: string;
  readonly table: string;
  iterator: string | undefined;
  /** The last record read, to go on from after a restart of DynamoDB Local. */
  lastSequenceNumber: string | undefined;
  closed: boolean;
}

/** The model's view of one region. */
export interface RegionState {
  readonly name: string;
  readonly dynamodb: DynamoDBClient;
  readonly streams: DynamoDBStreamsClient;
  readonly shards: Map<string, ShardCursor>;
  /** Writes from the other regions due here, oldest first. */
  queue: Delivery[];
  /** Who wrote each item's value here, by `table|itemKey`. */
  readonly stamps: Map<string, Stamp>;
  /** Replicated writes made here whose stream record is still to come, by `table|itemKey|image`. */
  readonly echoes: Map<string, number>;
  /** Whether its last read of its streams succeeded. */
  answering: boolean;
  /** Its shards must be described again (after a failure, a closed shard). */
  resync: boolean;
}

/** A region's clients (one attempt per call, short timeouts: a region that fails is retried). */
export function regionState(region: ReplicaRegion, credentials: LocalCredentials): RegionState {
  const config = {
    endpoint: region.endpoint,
    region: LOCAL_REGION,
    credentials,
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 5_000 },
  };
  return {
    name: region.name,
    dynamodb: new DynamoDBClient(config),
    streams: new DynamoDBStreamsClient(config),
    shards: new Map(),
    queue: [],
    stamps: new Map(),
    echoes: new Map(),
    answering: true,
    resync: false,
  };
}

/** Turns on the table's stream (new and old images, as global tables need) unless it is on. */
export async function enableStream(region: RegionState, table: string): Promise<void> {
  const { Table } = await region.dynamodb.send(new DescribeTableCommand({ TableName: table }));
  if (Table?.StreamSpecification?.StreamEnabled) return;
  await region.dynamodb.send(
    new UpdateTableCommand({
      TableName: table,
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
}

/**
 * Finds the shards of a region's streams and an iterator in each: at start after the records they
 * hold (read through and skipped), later after the last record read (a shard with none read from
 * its start: it is new, or DynamoDB Local restarted before anything was written to it).
 */
export async function describeShards(
  region: RegionState,
  tables: readonly string[],
  mode: 'skip-history' | 'resume',
): Promise<void> {
  for (const table of tables) {
    const { Table } = await region.dynamodb.send(new DescribeTableCommand({ TableName: table }));
    const streamArn = Table?.LatestStreamArn;
    if (!streamArn) continue;
    const { StreamDescription } = await region.streams.send(
      new DescribeStreamCommand({ StreamArn: streamArn }),
    );
    for (const shard of StreamDescription?.Shards ?? []) {
      const shardId = shard.ShardId ?? '';
      const known = region.shards.get(shardId);
      if (known?.closed) continue;
      const cursor: ShardCursor = known ?? {
        streamArn,
        shardId,
        table,
        iterator: undefined,
        lastSequenceNumber: undefined,
        closed: false,
      };
      region.shards.set(shardId, cursor);
      cursor.iterator = await shardIterator(region, cursor);
      if (mode === 'skip-history' && !known) await skipRecords(region, cursor);
    }
  }
  region.resync = false;
}

/** An iterator after the last record read in a shard, or from its start when none was read. */
export async function shardIterator(
  region: RegionState,
  cursor: ShardCursor,
): Promise<string | undefined> {
  const { ShardIterator } = await region.streams.send(
    new GetShardIteratorCommand({
      StreamArn: cursor.streamArn,
      ShardId: cursor.shardId,
      ...(cursor.lastSequenceNumber
        ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: cursor.lastSequenceNumber }
        : { ShardIteratorType: 'TRIM_HORIZON' }),
    }),
  );
  return ShardIterator;
}

/** Reads a shard to its end without replicating: what was written before the model started. */
export async function skipRecords(region: RegionState, cursor: ShardCursor): Promise<void> {
  for (;;) {
    const { Records = [], NextShardIterator } = await region.streams.send(
      new GetRecordsCommand({ ShardIterator: cursor.iterator }),
    );
    cursor.iterator = NextShardIterator;
    cursor.lastSequenceNumber =
      Records.at(-1)?.dynamodb?.SequenceNumber ?? cursor.lastSequenceNumber;
    if (Records.length === 0 || !NextShardIterator) return;
  }
}

/** The delivery of a stream record: the item's key, its new image (none for a removal). */
export function deliveryOf(
  record: StreamRecord,
  table: string,
  time: number,
  origin: number,
  lagMs: number,
): Delivery | undefined {
  const key = record.dynamodb?.Keys as Record<string, AttributeValue> | undefined;
  if (!key) return undefined;
  const image =
    record.eventName === 'REMOVE'
      ? undefined
      : (record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined);
  return { table, itemKey: canonical(key), key, image, time, origin, due: time + lagMs };
}

/** The item as it is in a region now (strongly consistent), `undefined` when there is none. */
export async function readItem(
  region: RegionState,
  delivery: Delivery,
): Promise<Record<string, AttributeValue> | undefined> {
  const { Item } = await region.dynamodb.send(
    new GetItemCommand({ TableName: delivery.table, Key: delivery.key, ConsistentRead: true }),
  );
  return Item;
}

/**
 * The condition that an item is still `expected`: absent (no `key` attribute), or every attribute
 * of `expected` with its value.
 */
export function unchangedCondition(
  key: Record<string, AttributeValue>,
  expected: Record<string, AttributeValue> | undefined,
): Pick<
  PutItemCommandInput,
  'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
> {
  if (!expected) {
    const [keyName = ''] = Object.keys(key);
    return {
      ConditionExpression: 'attribute_not_exists(#a0)',
      ExpressionAttributeNames: { '#a0': keyName },
    };
  }
  const entries = Object.entries(expected);
  return {
    ConditionExpression: entries.map((_, i) => `#a${i} = :v${i}`).join(' AND '),
    ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#a${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:v${i}`, value])),
  };
}

/** The key of a replicated write's expected stream record in its target. */
export function echoKey(
  table: string,
  itemKey: string,
  image: Record<string, AttributeValue> | undefined,
): string {
  return `${table}|${itemKey}|${canonical(image)}`;
}

/**
 * JSON of attribute values with map keys and set members sorted, so that equal items give equal
 * text whatever order DynamoDB returned them in; `null` for no item.
 */
export function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_name, inner: unknown) => {
    if (Array.isArray(inner) || inner === null || typeof inner !== 'object') return inner;
    const entries = Object.entries(inner as Record<string, unknown>).map(([name, member]) =>
      ['SS', 'NS', 'BS'].includes(name) && Array.isArray(member)
        ? [name, [...member].map(String).sort()]
        : [name, member],
    );
    return Object.fromEntries(entries.sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)));
  });
}

/** Runs `task` on every element, {@link WRITE_CONCURRENCY} at a time. @returns The results in order. */
export async function inBatches<T, R>(
  elements: readonly T[],
  task: (element: T, position: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < elements.length; start += WRITE_CONCURRENCY) {
    const batch = elements.slice(start, start + WRITE_CONCURRENCY);
    results.push(...(await Promise.all(batch.map((element, i) => task(element, start + i)))));
  }
  return results;
}
