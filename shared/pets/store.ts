/**
 * The PetStore port, through which handlers reach persistence, and its DynamoDB adapter.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, requireEnv } from '../clients.ts';
import { COUNTERS_TABLE, PETS_TABLE, STATUS_INDEX } from '../tables.ts';
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
 * What a store's list reads have cost, counted by the store itself: DynamoDB calls, items read
 * (`ScannedCount`) and read capacity units (`ConsumedCapacity`). Tests and the bench read it.
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

/** Persistence of pets, as the handlers need it. */
export interface PetStore {
  /**
   * Stores a new pet under a fresh id: a positive safe integer, unique under concurrent
   * creates and never reused.
   */
  createPet(newPet: NewPet): Promise<Pet>;
  /** The pet with this id, or `undefined`. */
  getPet(id: number): Promise<Pet | undefined>;
  /**
   * The first `limit` pets in ascending id after `afterId`, of one status or of all, and whether
   * more follow.
   */
  listPets(options: ListPetsOptions): Promise<PetPage>;
}

/** Name of the counter item that holds the last pet id issued. */
export const PET_ID_SEQUENCE = 'pet-id';

/** Table names the adapter works on. */
export interface DynamoDbPetStoreTables {
  /** The pets table (partition key `id`, GSI `status-index`). */
  pets: string;
  /** The counters table (partition key `name`), holding the pet-id sequence. */
  counters: string;
}

/**
 * PetStore on DynamoDB.
 *
 * Ids come from an atomic counter (UpdateItem ADD) in the counters table; the pet is then written
 * with a condition that the id is free, so a bug elsewhere can never overwrite a pet.
 * A create costs two writes; a get one strongly consistent read; a list page one Query on the
 * `status-index` GSI per status listed (one with a filter, three without), each reading at most
 * `limit + 1` items, whatever the table holds. Lists never Scan: a Scan's cost grows with the table, and
 * the table may hold items that are not pets.
 */
export class DynamoDbPetStore implements PetStore {
  /**
   * @param usage Counters the list reads add to. @default - fresh counters at zero
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: DynamoDbPetStoreTables,
    readonly usage: StoreUsage = emptyUsage(),
  ) {}

  async createPet(newPet: NewPet): Promise<Pet> {
    const sequence = await this.client.send(
      new UpdateCommand({
        TableName: this.tables.counters,
        Key: { name: PET_ID_SEQUENCE },
        UpdateExpression: 'ADD #value :one',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const id = Number(sequence.Attributes?.value);
    const pet: Pet = {
      id,
      name: newPet.name,
      categoryId: newPet.categoryId,
      status: newPet.status,
    };
    await this.client.send(
      new PutCommand({
        TableName: this.tables.pets,
        Item: { ...pet, createdAt: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(id)',
      }),
    );
    return pet;
  }

  async getPet(id: number): Promise<Pet | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tables.pets, Key: { id }, ConsistentRead: true }),
    );
    return Item ? toPet(Item) : undefined;
  }

  /**
   * Without `status`, the smallest ids of the three statuses' Queries merged: the `limit + 1`
   * smallest ids of all pets are among the `limit + 1` smallest of each status. The extra item
   * only tells whether more follow, so a full last page says there is none.
   */
  async listPets({ limit, status, afterId = 0 }: ListPetsOptions): Promise<PetPage> {
    const statuses = status ? [status] : PET_STATUSES;
    const pages = await Promise.all(statuses.map((s) => this.queryStatus(s, afterId, limit + 1)));
    const merged = pages.flat().sort((a, b) => a.id - b.id);
    return { pets: merged.slice(0, limit), hasMore: merged.length > limit };
  }

  /** At most `count` pets of `status` with an id above `afterId`, in ascending id. */
  private async queryStatus(status: PetStatus, afterId: number, count: number): Promise<Pet[]> {
    const output = await this.client.send(
      new QueryCommand({
        TableName: this.tables.pets,
        IndexName: STATUS_INDEX,
        KeyConditionExpression: '#status = :status AND #id > :afterId',
        ExpressionAttributeNames: { '#status': 'status', '#id': 'id' },
        ExpressionAttributeValues: { ':status': status, ':afterId': afterId },
        Limit: count,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    const items = output.Items ?? [];
    this.usage.calls += 1;
    this.usage.itemsRead += output.ScannedCount ?? items.length;
    this.usage.readUnits += output.ConsumedCapacity?.CapacityUnits ?? 0;
    return items.map(toPet);
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
 * The PetStore of a deployed or local function: table names from `PETS_TABLE_NAME` and
 * `COUNTERS_TABLE_NAME`, endpoint from `DYNAMODB_ENDPOINT` when set; its list reads are counted in
 * {@link ENV_STORE_USAGE}.
 *
 * @throws Error at start-up when a table name is missing.
 */
export function petStoreFromEnv(): PetStore {
  return new DynamoDbPetStore(
    createDocumentClient(),
    {
      pets: requireEnv(PETS_TABLE.envVar),
      counters: requireEnv(COUNTERS_TABLE.envVar),
    },
    ENV_STORE_USAGE,
  );
}
