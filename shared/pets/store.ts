/**
 * The PetStore port, through which handlers reach persistence, and its DynamoDB adapter.
 */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { type Container, createContainer } from '../container.ts';
import type { TransactWriteItem } from '../idempotency/store.ts';
import { requiredSetting } from '../settings.ts';
import { STATUS_INDEX } from '../tables.ts';
import { type DynamoDBPetStoreTables, PetIdSequence } from './id-sequence.ts';
import { type NewPet, PET_STATUSES, type Pet, type PetStatus } from './schemas.ts';

/** Options of {@link PetStore.listPets}. */
export interface ListPetsOptions {
  /** Most pets to return, 1 to 100. */
  limit: number;
  /** Only pets with this status. */
  status?: PetStatus;
  /** Only pets with a larger id: the last id of the page before. @default - from the lowest id */
  afterId?: number;
}

/** One page of pets. */
export interface PetPage {
  /** At most `limit` pets, in ascending id. */
  pets: Pet[];
  /** Whether more pets follow the last one (under the same filter). */
  hasMore: boolean;
}

/**
 * What a store's `status-index` reads (its lists) have cost, counted by the store itself: DynamoDB
 * calls, items read (`ScannedCount`) and read capacity units (`ConsumedCapacity`). Tests and the
 * bench read it.
 */
export interface StoreUsage {
  calls: number;
  itemsRead: number;
  readUnits: number;
}

/** Counters at zero. */
export function emptyUsage(): StoreUsage {
  return { calls: 0, itemsRead: 0, readUnits: 0 };
}

/** The counters of the store {@link petStoreFromEnv} builds (one per function container). */
export const ENV_STORE_USAGE: StoreUsage = emptyUsage();

/** Options of {@link PetStore.createPet}. */
export interface CreatePetOptions {
  /** Aborts the store's calls (the invocation's deadline). */
  readonly signal?: AbortSignal;
  /**
   * A write that must land together with the pet, or neither does (one transaction), e.g. the
   * completion of the request's idempotency record. It is the transaction's last item.
   * @default - the pet is written alone
   */
  readonly alsoWrite?: (pet: Pet) => TransactWriteItem;
}

/** Persistence of pets, as the handlers need it. */
export interface PetStore {
  /**
   * Stores a new pet under a fresh id: a positive safe integer, unique under concurrent
   * creates and never reused.
   */
  createPet(newPet: NewPet, options?: CreatePetOptions): Promise<Pet>;
  /** The pet with this id, or `undefined`. */
  getPet(id: number, options?: { signal?: AbortSignal }): Promise<Pet | undefined>;
  /**
   * The first `limit` pets in ascending id after `afterId`, of one status or of all, and whether
   * more follow.
   */
  listPets(options: ListPetsOptions & { signal?: AbortSignal }): Promise<PetPage>;
}

/**
 * PetStore on DynamoDB.
 *
 * Ids come from an atomic counter (UpdateItem ADD) on the sequence item of the pets table; the pet
 * is then written with a condition that the id is free, so a bug elsewhere can never overwrite a
 * pet. A create costs two calls (the sequence, then the pet: 1 + 2 write units with the GSI); with
 * `alsoWrite` the pet's write is a transaction of two items. A get is one strongly consistent read.
 * A list page is one Query on the `status-index` GSI per status listed (one with a filter, three
 * without), each reading at most `limit + 1` items, whatever the table holds. Lists never Scan: a
 * Scan's cost grows with the table, and the table also holds the sequence item, which is no pet.
 */
export class DynamoDBPetStore implements PetStore {
  /**
   * @param usage Counters the `status-index` reads add to: every list page, and the sequence's
   *   one-time seeding. @default - fresh counters at zero
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: DynamoDBPetStoreTables,
    readonly usage: StoreUsage = emptyUsage(),
  ) {
    this.sequence = new PetIdSequence(client, tables, (signal) => this.highestPetId(signal));
  }

  /** Issues the ids of new pets; seeds itself from {@link highestPetId} once per table. */
  private readonly sequence: PetIdSequence;

  async createPet(newPet: NewPet, options: CreatePetOptions = {}): Promise<Pet> {
    const { signal, alsoWrite } = options;
    const pet: Pet = {
      id: await this.sequence.next(signal),
      name: newPet.name,
      categoryId: newPet.categoryId,
      status: newPet.status,
    };
    const put = {
      TableName: this.tables.pets,
      Item: { ...pet, createdAt: new Date().toISOString() },
      ConditionExpression: 'attribute_not_exists(id)',
    };
    if (alsoWrite) {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: put }, alsoWrite(pet)],
          // Reused by the SDK's retries: a retry of a transaction that landed succeeds, not fails.
          ClientRequestToken: randomUUID(),
        }),
        { abortSignal: signal },
      );
    } else {
      await this.putPet(put, signal);
    }
    return pet;
  }

  /**
   * Writes a new pet's item, on condition that its id is free. When the condition fails because
   * the item is this very write (an attempt that landed but whose answer was lost, retried by the
   * SDK), the write succeeded; any other item under the id is a conflict.
   */
  private async putPet(
    put: { TableName: string; Item: Record<string, unknown>; ConditionExpression: string },
    signal: AbortSignal | undefined,
  ): Promise<void> {
    try {
      await this.client.send(new PutCommand(put), { abortSignal: signal });
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const { Item } = await this.client.send(
        new GetCommand({
          TableName: put.TableName,
          Key: { id: put.Item.id },
          ConsistentRead: true,
        }),
        { abortSignal: signal },
      );
      const ours = Object.entries(put.Item).every(([name, value]) => Item?.[name] === value);
      if (!ours) throw error;
    }
  }

  async getPet(id: number, options: { signal?: AbortSignal } = {}): Promise<Pet | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tables.pets, Key: { id }, ConsistentRead: true }),
      { abortSignal: options.signal },
    );
    return Item ? toPet(Item) : undefined;
  }

  /**
   * Without `status`, the smallest ids of the three statuses' Queries merged: the `limit + 1`
   * smallest ids of all pets are among the `limit + 1` smallest of each status. The extra item
   * only tells whether more follow, so a full last page says there is none.
   */
  async listPets({
    limit,
    status,
    afterId = 0,
    signal,
  }: ListPetsOptions & { signal?: AbortSignal }): Promise<PetPage> {
    const statuses = status ? [status] : PET_STATUSES;
    const pages = await Promise.all(
      statuses.map((s) => this.queryStatusIndex(s, limit + 1, signal, { afterId })),
    );
    const merged = pages
      .flat()
      .map(toPet)
      .sort((a, b) => a.id - b.id);
    return { pets: merged.slice(0, limit), hasMore: merged.length > limit };
  }

  /**
   * Up to `limit` items of one status from `status-index` with an id above `afterId`, in ascending
   * id or descending; the calls, items and read units are counted in {@link usage}.
   */
  private async queryStatusIndex(
    status: PetStatus,
    limit: number,
    signal: AbortSignal | undefined,
    {
      afterId = 0,
      order = 'ascending',
    }: { afterId?: number; order?: 'ascending' | 'descending' } = {},
  ): Promise<Record<string, unknown>[]> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tables.pets,
        IndexName: STATUS_INDEX,
        KeyConditionExpression: '#status = :status AND #id > :afterId',
        ExpressionAttributeNames: { '#status': 'status', '#id': 'id' },
        ExpressionAttributeValues: { ':status': status, ':afterId': afterId },
        ScanIndexForward: order === 'ascending',
        Limit: limit,
        ReturnConsumedCapacity: 'TOTAL',
      }),
      { abortSignal: signal },
    );
    const items = output.Items ?? [];
    this.usage.calls += 1;
    this.usage.itemsRead += output.ScannedCount ?? items.length;
    this.usage.readUnits += output.ConsumedCapacity?.CapacityUnits ?? 0;
    return items;
  }

  /** The highest pet id: one Query per status on `status-index`, newest first, one item each. */
  private async highestPetId(signal: AbortSignal | undefined): Promise<number> {
    const ids = await Promise.all(
      PET_STATUSES.map(async (status) => {
        const [newest] = await this.queryStatusIndex(status, 1, signal, { order: 'descending' });
        return Number(newest?.id ?? 0);
      }),
    );
    return Math.max(0, ...ids);
  }
}

/** Keeps only the Pet fields of a stored item (it also holds `createdAt`). */
function toPet(item: Record<string, unknown>): Pet {
  return {
    id: item.id as number,
    name: item.name as string,
    categoryId: item.categoryId as number,
    status: item.status as PetStatus,
  };
}

/**
 * The PetStore of a deployed or local function: the pets table from `PETS_TABLE_NAME`, the old
 * sequence's table from `COUNTERS_TABLE_NAME` when set; its list reads are counted in
 * {@link ENV_STORE_USAGE}.
 *
 * @param container @default createContainer()
 * @throws Error at start-up when the pets table's name is missing.
 */
export function petStoreFromEnv({ settings, client }: Container = createContainer()): PetStore {
  return new DynamoDBPetStore(
    client,
    {
      pets: requiredSetting(settings, 'PETS_TABLE_NAME'),
      legacyCounters: settings.COUNTERS_TABLE_NAME,
    },
    ENV_STORE_USAGE,
  );
}
