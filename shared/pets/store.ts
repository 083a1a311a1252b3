/**
 * The PetStore port, through which handlers reach persistence, and its DynamoDB adapter.
 */
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, requireEnv } from '../clients.ts';
import { COUNTERS_TABLE, PETS_TABLE, STATUS_INDEX } from '../tables.ts';
import type { NewPet, Pet, PetStatus } from './schemas.ts';

/** Options of {@link PetStore.listPets}. */
export interface ListPetsOptions {
  /** Most pets to return, 1 to 100. */
  limit: number;
  /** Only pets with this status. */
  status?: PetStatus;
}

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
   * At most `limit` pets. With `status`: ascending id, read from the status GSI. Without: in the
   * table's storage order, which is stable while the data does not change but not by id.
   */
  listPets(options: ListPetsOptions): Promise<Pet[]>;
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
 * A create costs two writes; a get one strongly consistent read; a list one Query or Scan.
 */
export class DynamoDbPetStore implements PetStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: DynamoDbPetStoreTables,
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

  async listPets({ limit, status }: ListPetsOptions): Promise<Pet[]> {
    const { Items = [] } = status
      ? await this.client.send(
          new QueryCommand({
            TableName: this.tables.pets,
            IndexName: STATUS_INDEX,
            KeyConditionExpression: '#status = :status',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': status },
            Limit: limit,
          }),
        )
      : await this.client.send(new ScanCommand({ TableName: this.tables.pets, Limit: limit }));
    return Items.map(toPet);
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
 * `COUNTERS_TABLE_NAME`, endpoint from `DYNAMODB_ENDPOINT` when set.
 *
 * @throws Error at start-up when a table name is missing.
 */
export function petStoreFromEnv(): PetStore {
  return new DynamoDbPetStore(createDocumentClient(), {
    pets: requireEnv(PETS_TABLE.envVar),
    counters: requireEnv(COUNTERS_TABLE.envVar),
  });
}
