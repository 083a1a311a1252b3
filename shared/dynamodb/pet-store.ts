/** The PetStore on DynamoDB: the pets table, its `status-index` GSI and the id sequence. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotentOutcome, IdempotentRequest } from '../idempotency/record.ts';
import type { PageCache } from '../pets/page-cache.ts';
import type { CallOptions, ListPetsOptions, PetPage, PetStore } from '../pets/pet-store.ts';
import type { NewPet, Pet } from '../pets/schemas.ts';
import { pageOf, petWithId, recordsOf } from '../pets/store-rules.ts';
import { requiredSetting } from '../settings.ts';
import { unlessUnavailable } from '../store-errors.ts';
import type { DynamoDBBase } from './base.ts';
import { IdBlocks } from './id-blocks.ts';
import type { DynamoDBIdempotencyStore } from './idempotency-store.ts';
import { petItem, petOf } from './pet-item.ts';
import { StatusIndex } from './status-index.ts';

/** Table names the pet store works on. */
export interface DynamoDBPetStoreTables {
  /** The pets table (partition key `id`, GSI `status-index`), holding the pet-id sequence. */
  readonly pets: string;
}

/** Options of {@link DynamoDBPetStore}. */
export interface DynamoDBPetStoreOptions {
  /** Idempotency records `createPetOnce` writes. @default - none: `createPetOnce` throws */
  readonly records?: DynamoDBIdempotencyStore;
  /** Clock of the id blocks and page caches, epoch milliseconds. @default Date.now */
  readonly now?: () => number;
  /** Most ids this instance leases at once (`IdBlocks`). @default DEFAULT_ID_BLOCK_SIZE (100) */
  readonly maxIdBlockSize?: number;
  /** listPets's page cache, kept across invocations. @default - none: every page reads DynamoDB */
  readonly pageCache?: PageCache;
}

/** Item sent with a write, for the transaction or the put. */
type PetPut = { TableName: string; Item: Record<string, unknown>; ConditionExpression: string };

/** PetStore on DynamoDB; never a Scan (the calls and their costs: docs/architecture.md). */
export class DynamoDBPetStore implements PetStore {
  private readonly records: DynamoDBIdempotencyStore | undefined;
  private readonly now: () => number;
  /** Issues the ids of new pets from blocks leased on the sequence item. */
  private readonly ids: IdBlocks;
  private readonly statusIndex: StatusIndex;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: DynamoDBPetStoreTables,
    options: DynamoDBPetStoreOptions = {},
  ) {
    this.records = options.records;
    this.now = options.now ?? Date.now;
    this.ids = new IdBlocks(client, tables.pets, {
      maxBlockSize: options.maxIdBlockSize,
      now: this.now,
    });
    this.statusIndex = new StatusIndex(client, tables.pets, {
      now: this.now,
      cache: options.pageCache,
    });
  }

  /** The store on `base`'s client and table `PETS_TABLE_NAME`. @throws Error when it is unset. */
  static from(
    { client, settings }: DynamoDBBase,
    options: DynamoDBPetStoreOptions = {},
  ): DynamoDBPetStore {
    return new DynamoDBPetStore(
      client,
      { pets: requiredSetting(settings, 'PETS_TABLE_NAME') },
      options,
    );
  }

  createPet(newPet: NewPet, options: CallOptions = {}): Promise<Pet> {
    return unlessUnavailable(async () => {
      const { pet, put } = await this.newPetPut(newPet, options.signal);
      await this.putPet(put, options.signal);
      return pet;
    });
  }

  /** One `TransactWriteItems` of the pet and its record (SDK retries reuse one `ClientRequestToken`). */
  createPetOnce(
    newPet: NewPet,
    request: IdempotentRequest,
    options: CallOptions = {},
  ): Promise<IdempotentOutcome<Pet>> {
    const records = recordsOf(this.records);
    return unlessUnavailable(async () => {
      const { pet, put, nowMs } = await this.newPetPut(newPet, options.signal);
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: put }, records.put(request, pet, nowMs)],
          }),
          { abortSignal: options.signal },
        );
      } catch (error) {
        const outcome = records.outcomeOf(error, 1, request);
        if (outcome) return outcome;
        throw error;
      }
      return { status: 'created', result: pet };
    });
  }

  /** Leases a block of ids unless this instance holds a fresh one with ids left. */
  prepareCreate(options: CallOptions = {}): Promise<void> {
    return unlessUnavailable(() => this.ids.prepare(options.signal));
  }

  /** A new pet under the next id, and its conditional put. */
  private async newPetPut(newPet: NewPet, signal: AbortSignal | undefined) {
    const pet = petWithId(newPet, await this.ids.next(signal));
    const nowMs = this.now();
    const put: PetPut = {
      TableName: this.tables.pets,
      Item: petItem(pet, nowMs),
      ConditionExpression: 'attribute_not_exists(id)',
    };
    return { pet, put, nowMs };
  }

  /** Writes a new pet's item on condition that its id is free (or holds this very write). */
  private async putPet(put: PetPut, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({ ...put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
        { abortSignal: signal },
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Our own put, landed on an attempt whose answer was lost and then retried by the SDK.
      const found = error.Item ? unmarshall(error.Item) : {};
      const ours = Object.entries(put.Item).every(([name, value]) => found[name] === value);
      if (!ours) throw error;
    }
  }

  async getPet(id: number, options: CallOptions = {}): Promise<Pet | undefined> {
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
    return pageOf(pets, limit);
  }
}
