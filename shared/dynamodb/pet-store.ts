/** The whole PetStore on DynamoDB, every part built: for the local stack, tests and benches. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PageCache } from '../pets/page-cache.ts';
import { type Regions, regionsOf } from '../regions.ts';
import type { DynamoDBBase } from './base.ts';
import { IdBlocks } from './id-blocks.ts';
import type { DynamoDBIdempotencyStore } from './idempotency-store.ts';
import { type DynamoDBPetStoreTables, DynamoDBPetTable, petsTablesOf } from './pet-table.ts';
import { StatusIndex } from './status-index.ts';

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
  /** The stage's regions and this store's (its id blocks, its pages' settling). @default ONE_REGION */
  readonly regions?: Regions;
}

/** {@link DynamoDBPetTable} with its id blocks and status index; a function's entry takes its own parts. */
export class DynamoDBPetStore extends DynamoDBPetTable {
  constructor(
    client: DynamoDBDocumentClient,
    tables: DynamoDBPetStoreTables,
    options: DynamoDBPetStoreOptions = {},
  ) {
    const now = options.now ?? Date.now;
    super(client, tables, {
      now,
      records: options.records,
      ids: new IdBlocks(client, tables.pets, {
        maxBlockSize: options.maxIdBlockSize,
        now,
        regions: options.regions,
      }),
      pages: new StatusIndex(client, tables.pets, {
        now,
        cache: options.pageCache,
        regions: options.regions,
      }),
    });
  }

  /**
   * The store on `base`'s client, table `PETS_TABLE_NAME` and regions (`PETSTORE_REGIONS`).
   * @throws Error when the table's name is unset or the regions are invalid (`regionsOf`).
   */
  static override from(
    base: DynamoDBBase,
    options: DynamoDBPetStoreOptions = {},
  ): DynamoDBPetStore {
    return new DynamoDBPetStore(base.client, petsTablesOf(base), {
      regions: regionsOf(base.settings),
      ...options,
    });
  }
}
