/** The whole PetStore on DynamoDB, for the local stack, tests and benches. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requiredSetting } from '../function-settings.ts';
import type { IdempotentOutcome, IdempotentRequest } from '../idempotency/record.ts';
import type { PageCache } from '../pets/page-cache.ts';
import type { CallOptions, ListPetsOptions, PetPage, PetStore } from '../pets/pet-store.ts';
import type { NewPet, Pet } from '../pets/schemas.ts';
import { type Regions, regionsOf } from '../regions.ts';
import type { DynamoDBBase } from './base.ts';
import { IdBlocks } from './id-blocks.ts';
import { IdempotencyRecordItems } from './idempotency-items.ts';
import { DynamoDBPetCreator } from './pet-creator.ts';
import { DynamoDBPetReader } from './pet-reader.ts';
import { StatusIndex } from './status-index.ts';

export interface DynamoDBPetStoreTables {
  readonly pets: string;
  readonly idempotency: string;
}

export interface DynamoDBPetStoreOptions {
  /** Epoch ms. @default Date.now */
  readonly now?: () => number;
  /** @default DEFAULT_ID_BLOCK_SIZE */
  readonly maxIdBlockSize?: number;
  /** listPets's page cache, kept across invocations. @default - none: every page reads DynamoDB */
  readonly pageCache?: PageCache;
  /** @default ONE_REGION */
  readonly regions?: Regions;
}

/** Every operation's piece on one client. */
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
    this.creator = new DynamoDBPetCreator(
      client,
      tables.pets,
      new IdBlocks(client, tables.pets, regions, now, options.maxIdBlockSize),
      new IdempotencyRecordItems(tables.idempotency, regions),
      now,
    );
    this.reader = new DynamoDBPetReader(client, tables.pets);
    this.index = new StatusIndex(client, tables.pets, { now, cache: options.pageCache, regions });
  }

  /** @throws Error when a setting is unset or invalid. */
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

/** @throws Error when `PETS_TABLE_NAME` or `IDEMPOTENCY_TABLE_NAME` is unset. */
export function petsTablesOf({ settings }: Pick<DynamoDBBase, 'settings'>): DynamoDBPetStoreTables {
  return {
    pets: requiredSetting(settings, 'PETS_TABLE_NAME'),
    idempotency: requiredSetting(settings, 'IDEMPOTENCY_TABLE_NAME'),
  };
}
