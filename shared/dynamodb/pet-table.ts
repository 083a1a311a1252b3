/**
 * The PetStore's calls on the pets table, with the parts a function's entry hands it: only what
 * the function calls is in its bundle (`DynamoDBPetStore` builds every part).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { IdempotentOutcome, IdempotentRequest } from '../idempotency/record.ts';
import type { CallOptions, ListPetsOptions, PetPage, PetStore } from '../pets/pet-store.ts';
import type { NewPet, Pet } from '../pets/schemas.ts';
import { pageOf, partOf, petWithId } from '../pets/store-rules.ts';
import { requiredSetting } from '../settings.ts';
import { unlessUnavailable } from '../store-errors.ts';
import type { DynamoDBBase } from './base.ts';
import type { IdBlocks } from './id-blocks.ts';
import type { DynamoDBIdempotencyStore } from './idempotency-store.ts';
import { petItem, petOf } from './pet-item.ts';
import type { StatusIndex } from './status-index.ts';

/** Table names the pet store works on. */
export interface DynamoDBPetStoreTables {
  /** The pets table (partition key `id`, GSI `status-index`), holding the pet-id sequence. */
  readonly pets: string;
}

/** The parts of a {@link DynamoDBPetTable}; a call that needs a missing one throws. */
export interface DynamoDBPetParts {
  /** Ids of new pets (createPet, createPetOnce, prepareCreate). @default - none */
  readonly ids?: IdBlocks;
  /** Idempotency records (createPetOnce). @default - none */
  readonly records?: DynamoDBIdempotencyStore;
  /** The `status-index` pages (listPets). @default - none */
  readonly pages?: StatusIndex;
  /** Clock of the pets' `createdAt`, epoch milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** Item sent with a write, for the transaction or the put. */
type PetPut = { TableName: string; Item: Record<string, unknown>; ConditionExpression: string };

/** PetStore on DynamoDB; never a Scan (the calls and their costs: docs/architecture.md). */
export class DynamoDBPetTable implements PetStore {
  private readonly now: () => number;

  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tables: DynamoDBPetStoreTables,
    private readonly parts: DynamoDBPetParts = {},
  ) {
    this.now = parts.now ?? Date.now;
  }

  /** The store on `base`'s client and table `PETS_TABLE_NAME`. @throws Error when it is unset. */
  static from(base: DynamoDBBase, parts: DynamoDBPetParts = {}): DynamoDBPetTable {
    return new DynamoDBPetTable(base.client, petsTablesOf(base), parts);
  }

  createPet(newPet: NewPet, options: CallOptions = {}): Promise<Pet> {
    return unlessUnavailable(async () => {
      const { pet, put } = await this.newPetPut(newPet, options.signal);
      await this.putPet(put, options.signal);
      return pet;
    });
  }

  /**
   * One `TransactWriteItems` of the pet, its record and the check of the other regions' records
   * (SDK retries reuse one `ClientRequestToken`).
   */
  createPetOnce(
    newPet: NewPet,
    request: IdempotentRequest,
    options: CallOptions = {},
  ): Promise<IdempotentOutcome<Pet>> {
    const records = partOf(this.parts.records, 'idempotency records');
    return unlessUnavailable(async () => {
      const { pet, put, nowMs } = await this.newPetPut(newPet, options.signal);
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: put }, ...records.items(request, pet, nowMs)],
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
    return unlessUnavailable(() => partOf(this.parts.ids, 'id blocks').prepare(options.signal));
  }

  /** A new pet under the next id, and its conditional put. */
  private async newPetPut(newPet: NewPet, signal: AbortSignal | undefined) {
    const pet = petWithId(newPet, await partOf(this.parts.ids, 'id blocks').next(signal));
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
      partOf(this.parts.pages, 'status index').read(status, afterId, limit + 1, signal),
    );
    return pageOf(pets, limit);
  }
}

/** The tables of `base`'s settings. @throws Error when `PETS_TABLE_NAME` is unset. */
export function petsTablesOf({ settings }: Pick<DynamoDBBase, 'settings'>): DynamoDBPetStoreTables {
  return { pets: requiredSetting(settings, 'PETS_TABLE_NAME') };
}
