/** The PetStore on DynamoDB: the pets table, its `status-index` GSI and the id sequence. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { refuseUnlessFree } from '../idempotency/outcome.ts';
import type { IdempotentRequest, StoredResponse } from '../idempotency/record.ts';
import type { PageCache } from '../pets/page-cache.ts';
import type { CreatePetOptions, ListPetsOptions, PetPage, PetStore } from '../pets/pet-store.ts';
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
  /** Idempotency records `recording` writes. @default - none: a create with `recording` throws */
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

  createPet(newPet: NewPet, options: CreatePetOptions = {}): Promise<Pet> {
    return unlessUnavailable(() => this.writePet(newPet, options));
  }

  /** Leases a block of ids unless this instance holds a fresh one with ids left. */
  prepareCreate(options: { signal?: AbortSignal } = {}): Promise<void> {
    return unlessUnavailable(() => this.ids.prepare(options.signal));
  }

  private async writePet(newPet: NewPet, options: CreatePetOptions): Promise<Pet> {
    const { signal, recording } = options;
    const pet = petWithId(newPet, await this.ids.next(signal));
    const nowMs = this.now();
    const put: PetPut = {
      TableName: this.tables.pets,
      Item: petItem(pet, nowMs),
      ConditionExpression: 'attribute_not_exists(id)',
    };
    if (recording) {
      const records = recordsOf(this.records);
      await this.putRecorded(put, recording.response(pet), { records, recording, nowMs, signal });
    } else {
      await this.putPet(put, signal);
    }
    return pet;
  }

  /**
   * Writes the pet and its idempotency record in one transaction (its SDK retries reuse one
   * `ClientRequestToken`). @throws as {@link PetStore.createPet}
   */
  private async putRecorded(
    put: PetPut,
    response: StoredResponse,
    options: {
      records: DynamoDBIdempotencyStore;
      recording: IdempotentRequest;
      nowMs: number;
      signal: AbortSignal | undefined;
    },
  ): Promise<void> {
    const { records } = options;
    try {
      await this.client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: put }, records.put(options.recording, response, options.nowMs)],
        }),
        { abortSignal: options.signal },
      );
    } catch (error) {
      refuseUnlessFree(records.metAtKey(error, 1), options.nowMs, { cause: error });
      throw error;
    }
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
    return pageOf(pets, limit);
  }
}
