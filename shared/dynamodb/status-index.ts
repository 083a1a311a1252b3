/** listPets's port on the pets table's `status-index`: a Query per shard, merged by id. */
import { type DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { requiredSetting } from '../function-settings.ts';
import { type PageCache, pageExpiry, settledAfterMs } from '../pets/page-cache.ts';
import type { ListPetsOptions, PetLister, PetPage } from '../pets/pet-store.ts';
import { PET_STATUSES, type Pet, type PetStatus } from '../pets/schemas.ts';
import { pageOf } from '../pets/store-rules.ts';
import { ONE_REGION, type Regions, regionsOf } from '../regions.ts';
import { unlessUnavailable } from '../store-errors.ts';
import type { DynamoDBBase } from './base.ts';
import { petOf, STATUS_INDEX, STATUS_SHARD_ATTRIBUTE, STATUS_SHARDS } from './pet-item.ts';

/** A stored item as a Query returns it: a pet, its `statusShard` and `createdAt`. */
type Item = Record<string, unknown> & { id: number };

/** Every `status-index` partition key value of `status`, shard 0 first. */
function statusShardsOf(status: PetStatus): string[] {
  return Array.from({ length: STATUS_SHARDS }, (_, shard) => `${status}#${shard}`);
}

/** The first `count` elements, ascending by `id`, of lists each sorted by `id` (a k-way merge). */
export function mergeById<T extends { readonly id: number }>(
  lists: readonly (readonly T[])[],
  count: number,
): T[] {
  const heads = lists.map((items) => ({ items, at: 0 }));
  const merged: T[] = [];
  while (merged.length < count) {
    let best: { items: readonly T[]; at: number } | undefined;
    for (const head of heads) {
      const candidate = head.items[head.at];
      if (candidate && (!best || candidate.id < (best.items[best.at] as T).id)) best = head;
    }
    if (!best) break;
    merged.push(best.items[best.at++] as T);
  }
  return merged;
}

/** What a {@link StatusIndex} reads its time from, and caches pages in. */
export interface StatusIndexOptions {
  readonly now: () => number;
  /** @default - none: every page reads every shard */
  readonly cache?: PageCache;
  /** They set when a page is settled (`settledAfterMs`). @default ONE_REGION */
  readonly regions?: Regions;
}

/** The `status-index` GSI of one pets table, and the pages of pets it lists. */
export class StatusIndex implements PetLister {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly options: StatusIndexOptions,
  ) {}

  /** The index of `base`'s pets table and regions. @throws Error for an unset table or bad regions. */
  static from(base: DynamoDBBase, options: StatusIndexOptions): StatusIndex {
    const table = requiredSetting(base.settings, 'PETS_TABLE_NAME');
    return new StatusIndex(base.client, table, { regions: regionsOf(base.settings), ...options });
  }

  async listPets({ limit, status, afterId = 0, signal }: ListPetsOptions): Promise<PetPage> {
    const pets = await unlessUnavailable(() => this.read(status, afterId, limit + 1, signal));
    return pageOf(pets, limit);
  }

  /** The `count` smallest ids above `afterId`, of `status` or all; shared: never change them. */
  async read(
    status: PetStatus | undefined,
    afterId: number,
    count: number,
    signal: AbortSignal | undefined,
  ): Promise<readonly Pet[]> {
    if (status) return this.readStatus(status, afterId, count, signal);
    const lists = await Promise.all(
      PET_STATUSES.map((each) => this.readStatus(each, afterId, count, signal)),
    );
    return mergeById(lists, count);
  }

  /** One status's `count` smallest ids above `afterId`: cached, or every shard's Query merged. */
  private async readStatus(
    status: PetStatus,
    afterId: number,
    count: number,
    signal: AbortSignal | undefined,
  ): Promise<readonly Pet[]> {
    const { cache, now } = this.options;
    const key = `${status}.${afterId}.${count}`;
    const cached = cache?.get(key, now());
    if (cached) return cached;
    let reading = this.reading.get(key);
    if (!reading) {
      reading = this.readShards(key, status, afterId, count, signal).finally(() => {
        this.reading.delete(key);
      });
      this.reading.set(key, reading);
    }
    return reading;
  }

  /** The reads under way by key, shared by concurrent callers (the local gateway runs many). */
  private readonly reading = new Map<string, Promise<readonly Pet[]>>();

  /** Every shard's Query of one status, merged, and kept in the cache under `key`. */
  private async readShards(
    key: string,
    status: PetStatus,
    afterId: number,
    count: number,
    signal: AbortSignal | undefined,
  ): Promise<readonly Pet[]> {
    const { cache, now, regions = ONE_REGION } = this.options;
    const fetchedAt = now();
    const shards = await Promise.all(
      statusShardsOf(status).map((shard) => this.query(shard, count, signal, { afterId })),
    );
    const items = mergeById(shards, count);
    const pets = items.map(petOf);
    const newest = Date.parse(String(items.at(-1)?.createdAt));
    const full = items.length === count;
    cache?.set(key, pets, pageExpiry(fetchedAt, full, newest, settledAfterMs(regions)));
    return pets;
  }

  private async query(
    shard: string,
    limit: number,
    signal: AbortSignal | undefined,
    { afterId = 0 }: { afterId?: number } = {},
  ): Promise<Item[]> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: STATUS_INDEX,
        KeyConditionExpression: '#shard = :shard AND #id > :afterId',
        ExpressionAttributeNames: { '#shard': STATUS_SHARD_ATTRIBUTE, '#id': 'id' },
        ExpressionAttributeValues: { ':shard': shard, ':afterId': afterId },
        Limit: limit,
      }),
      { abortSignal: signal },
    );
    return (output.Items ?? []) as Item[];
  }
}
