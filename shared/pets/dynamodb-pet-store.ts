/** The PetStore on DynamoDB: the pets table, its `status-index` GSI and the id sequence. */
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBase } from '../dynamodb-base.ts';
import type { DynamoDBIdempotencyStore } from '../idempotency/dynamodb-idempotency-store.ts';
import { IdempotencyLockLostError } from '../idempotency/errors.ts';
import { requiredSetting } from '../settings.ts';
import { unlessUnavailable } from '../store-errors.ts';
import { type DynamoDBPetStoreTables, PetIdSequence } from './id-sequence.ts';
import type { PageCache } from './page-cache.ts';
import { petItem, petOf } from './pet-item.ts';
import type { CreatePetOptions, ListPetsOptions, PetPage, PetStore } from './pet-store.ts';
import type { NewPet, Pet } from './schemas.ts';
import { StatusIndex } from './status-index.ts';

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
  /**
   * The cache of listPets's pages: the listPets function's, kept across its invocations.
   * @default - none: every page reads every shard of its statuses
   */
  readonly pageCache?: PageCache;
}

/**
 * PetStore on DynamoDB: a create is the sequence's ADD then a conditional put (a transaction with
 * `completing`); a get one consistent read; a list page one Query on `status-index` per shard of
 * each status listed, merged by id, or the page cache; never a Scan (costs: docs/architecture.md).
 */
export class DynamoDBPetStore implements PetStore {
  /** The counters of the `status-index` reads (see {@link DynamoDBPetStoreOptions.usage}). */
  readonly usage: StoreUsage;
  private readonly records: DynamoDBIdempotencyStore | undefined;
  private readonly now: () => number;
  private readonly statusIndex: StatusIndex;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: DynamoDBPetStoreTables,
    options: DynamoDBPetStoreOptions = {},
  ) {
    this.usage = options.usage ?? emptyUsage();
    this.records = options.records;
    this.now = options.now ?? Date.now;
    this.statusIndex = new StatusIndex(client, tables.pets, {
      usage: this.usage,
      now: this.now,
      cache: options.pageCache,
    });
    this.sequence = new PetIdSequence(client, tables, (signal) =>
      this.statusIndex.highestId(signal),
    );
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

  /** Issues the ids of new pets; seeds itself from the highest id in `status-index` once per table. */
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
      Item: petItem(pet, this.now()),
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
    return Item ? petOf(Item) : undefined;
  }

  /** The first `limit + 1` pets after `afterId`: `limit` of them, and whether more follow. */
  async listPets({ limit, status, afterId = 0, signal }: ListPetsOptions): Promise<PetPage> {
    const pets = await unlessUnavailable(() =>
      this.statusIndex.read(status, afterId, limit + 1, signal),
    );
    return { pets: pets.slice(0, limit), hasMore: pets.length > limit };
  }
}

/** The transaction was cancelled because the record's lock (its last item) is no longer ours. */
function lostLock(error: unknown): boolean {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (
    (error as Error).name === 'TransactionCanceledException' &&
    reasons?.at(-1)?.Code === 'ConditionalCheckFailed'
  );
}
