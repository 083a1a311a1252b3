/** The PetStore on DynamoDB: the pets table, its `status-index` GSI and the id sequence. */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBase } from '../dynamodb-base.ts';
import type { DynamoDBIdempotencyStore } from '../idempotency/dynamodb-idempotency-store.ts';
import { IdempotencyLockLostError } from '../idempotency/errors.ts';
import { requiredSetting } from '../settings.ts';
import { unlessUnavailable } from '../store-errors.ts';
import { STATUS_INDEX } from '../tables.ts';
import { type DynamoDBPetStoreTables, PetIdSequence } from './id-sequence.ts';
import type { CreatePetOptions, ListPetsOptions, PetPage, PetStore } from './pet-store.ts';
import { type NewPet, PET_STATUSES, type Pet, type PetStatus } from './schemas.ts';

/** What the `status-index` reads have cost: calls, items read (`ScannedCount`), read units. */
export interface StoreUsage {
  calls: number;
  itemsRead: number;
  readUnits: number;
}

/** Counters at zero. */
export function emptyUsage(): StoreUsage {
  return { calls: 0, itemsRead: 0, readUnits: 0 };
}

/** Options of {@link DynamoDBPetStore}. */
export interface DynamoDBPetStoreOptions {
  /** Counters the `status-index` reads add to. @default - fresh counters at zero */
  readonly usage?: StoreUsage;
  /**
   * The idempotency records that `createPet`'s `completing` completes, in the pet's transaction.
   * @default - none: a create with `completing` throws
   */
  readonly records?: DynamoDBIdempotencyStore;
  /** Clock of the id blocks and page caches, epoch milliseconds. @default Date.now */
  readonly now?: () => number;
}

/**
 * PetStore on DynamoDB: a create is the sequence's ADD then a conditional put (a transaction with
 * `completing`); a get one consistent read; a list page one Query on `status-index` per status,
 * never a Scan (costs: docs/architecture.md).
 */
export class DynamoDBPetStore implements PetStore {
  /** The counters of the `status-index` reads (see {@link DynamoDBPetStoreOptions.usage}). */
  readonly usage: StoreUsage;
  private readonly records: DynamoDBIdempotencyStore | undefined;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: DynamoDBPetStoreTables,
    options: DynamoDBPetStoreOptions = {},
  ) {
    this.usage = options.usage ?? emptyUsage();
    this.records = options.records;
    this.sequence = new PetIdSequence(client, tables, (signal) => this.highestPetId(signal));
  }

  /**
   * The store on `base`'s client and tables `PETS_TABLE_NAME` (and the old sequence's
   * `COUNTERS_TABLE_NAME`). @throws Error when `PETS_TABLE_NAME` is unset.
   */
  static from(
    { client, settings }: DynamoDBBase,
    options: DynamoDBPetStoreOptions = {},
  ): DynamoDBPetStore {
    const tables = {
      pets: requiredSetting(settings, 'PETS_TABLE_NAME'),
      legacyCounters: settings.COUNTERS_TABLE_NAME,
    };
    return new DynamoDBPetStore(client, tables, options);
  }

  /** Issues the ids of new pets; seeds itself from {@link highestPetId} once per table. */
  private readonly sequence: PetIdSequence;

  createPet(newPet: NewPet, options: CreatePetOptions = {}): Promise<Pet> {
    return unlessUnavailable(() => this.writePet(newPet, options));
  }

  private async writePet(newPet: NewPet, options: CreatePetOptions): Promise<Pet> {
    const { signal, completing } = options;
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
    if (completing) {
      if (!this.records) throw new Error('This pet store was built without idempotency records');
      const completion = this.records.completion(completing.lock, completing.response(pet));
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: put }, completion],
            // Reused by the SDK's retries: a retry of a transaction that landed succeeds, not fails.
            ClientRequestToken: randomUUID(),
          }),
          { abortSignal: signal },
        );
      } catch (error) {
        if (lostLock(error)) throw new IdempotencyLockLostError({ cause: error });
        throw error;
      }
    } else {
      await this.putPet(put, signal);
    }
    return pet;
  }

  /** Writes a new pet's item on condition that its id is free (or holds this very write). */
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

  async prepareCreate(_options: { signal?: AbortSignal } = {}): Promise<void> {}

  async getPet(id: number, options: { signal?: AbortSignal } = {}): Promise<Pet | undefined> {
    const { Item } = await unlessUnavailable(() =>
      this.client.send(
        new GetCommand({ TableName: this.tables.pets, Key: { id }, ConsistentRead: true }),
        { abortSignal: options.signal },
      ),
    );
    return Item ? toPet(Item) : undefined;
  }

  /** Without `status`, the smallest ids of the three statuses' Queries (`limit + 1` each) merged. */
  async listPets({ limit, status, afterId = 0, signal }: ListPetsOptions): Promise<PetPage> {
    const statuses = status ? [status] : PET_STATUSES;
    const pages = await unlessUnavailable(() =>
      Promise.all(statuses.map((s) => this.queryStatusIndex(s, limit + 1, signal, { afterId }))),
    );
    const merged = pages
      .flat()
      .map(toPet)
      .sort((a, b) => a.id - b.id);
    return { pets: merged.slice(0, limit), hasMore: merged.length > limit };
  }

  /** Up to `limit` items of one status above `afterId`, counted in {@link usage}. */
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

/** The transaction was cancelled because the record's lock (its last item) is no longer ours. */
function lostLock(error: unknown): boolean {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (
    (error as Error).name === 'TransactionCanceledException' &&
    reasons?.at(-1)?.Code === 'ConditionalCheckFailed'
  );
}
