/** The whole PetStore on DynamoDB, for the local stack, tests and benches (an entry builds its own piece). */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IdempotentOutcome, IdempotentRequest } from '../idempotency/record.ts';
import type { PageCache } from '../pets/page-cache.ts';
import type { CallOptions, ListPetsOptions, PetPage, PetStore } from '../pets/pet-store.ts';
import type { NewPet, Pet } from '../pets/schemas.ts';
import { type Regions, regionsOf } from '../regions.ts';
import { requiredSetting } from '../settings.ts';
import type { DynamoDBBase } from './base.ts';
import { IdBlocks } from './id-blocks.ts';
import { IdempotencyRecordItems } from './idempotency-items.ts';
import { DynamoDBPetCreator } from './pet-creator.ts';
import { DynamoDBPetReader } from './pet-reader.ts';
import { StatusIndex } from './status-index.ts';

/** Table names the pet store works on. */
export interface DynamoDBPetStoreTables {
  /** The pets table (partition key `id`, GSI `status-index`), holding the pet-id sequence. */
  readonly pets: string;
  /** The idempotency records' table (createPetOnce). */
  readonly idempotency: string;
}

export interface DynamoDBPetStoreOptions {
  /** Clock of the id blocks, the pets' `createdAt` and the page caches, epoch ms. @default Date.now */
  readonly now?: () => number;
  /** Most ids this instance leases at once (`IdBlocks`). @default DEFAULT_ID_BLOCK_SIZE (100) */
  readonly maxIdBlockSize?: number;
  /** listPets's page cache, kept across invocations. @default - none: every page reads DynamoDB */
  readonly pageCache?: PageCache;
  /** The stage's regions and this store's (its ids, its records, its pages' settling). @default ONE_REGION */
  readonly regions?: Regions;
}

/** Every operation's piece on one client: {@link DynamoDBPetCreator}, {@link DynamoDBPetReader}, {@link StatusIndex}. */
export class DynamoDBPetStore implements PetStore {
  private readonly creator: DynamoDBPetCreator;
  private readonly reader: DynamoDBPetReader;
  private readonly index: StatusIndex;

  constructor(
    client: DynamoDBDocumentClient,
    tables: DynamoDBPetStoreTables,
    options: DynamoDBPetStoreOptions = {},
  ) {
    const { now = Date.now, regions } = options;
    this.creator = new DynamoDBPetCreator(client, tables.pets, {
      now,
      ids: new IdBlocks(client, tables.pets, {
        maxBlockSize: options.maxIdBlockSize,
        now,
        regions,
      }),
      records: new IdempotencyRecordItems(tables.idempotency, regions),
    });
    this.reader = new DynamoDBPetReader(client, tables.pets);
    this.index = new StatusIndex(client, tables.pets, { now, cache: options.pageCache, regions });
  }

  /** The store on `base`'s client, tables and regions. @throws Error when a setting is unset or invalid. */
  static from(base: DynamoDBBase, options: DynamoDBPetStoreOptions = {}): DynamoDBPetStore {
    return new DynamoDBPetStore(base.client, petsTablesOf(base), {
      regions: regionsOf(base.settings),
      ...options,
    });
  }

  createPet(newPet: NewPet, options?: CallOptions): Promise<Pet> {
    return this.creator.createPet(newPet, options);
  }

  createPetOnce(
    newPet: NewPet,
    request: IdempotentRequest,
    options?: CallOptions,
  ): Promise<IdempotentOutcome<Pet>> {
    return this.creator.createPetOnce(newPet, request, options);
  }

  prepareCreate(options?: CallOptions): Promise<void> {
    return this.creator.prepareCreate(options);
  }

  getPet(id: number, options?: CallOptions): Promise<Pet | undefined> {
    return this.reader.getPet(id, options);
  }

  listPets(options: ListPetsOptions): Promise<PetPage> {
    return this.index.listPets(options);
  }
}

/** The tables of `base`'s settings. @throws Error when `PETS_TABLE_NAME` or `IDEMPOTENCY_TABLE_NAME` is unset. */
export function petsTablesOf({ settings }: Pick<DynamoDBBase, 'settings'>): DynamoDBPetStoreTables {
  return {
    pets: requiredSetting(settings, 'PETS_TABLE_NAME'),
    idempotency: requiredSetting(settings, 'IDEMPOTENCY_TABLE_NAME'),
  };
}
