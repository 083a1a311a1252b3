/** createPet's port on the pets table: a pet alone, or with its idempotency record in one transaction. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  PutCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { requiredSetting } from '../function-settings.ts';
import type { IdempotentOutcome, IdempotentRequest } from '../idempotency/record.ts';
import type { CallOptions, PetCreator } from '../pets/pet-store.ts';
import type { NewPet, Pet } from '../pets/schemas.ts';
import { petWithId } from '../pets/store-rules.ts';
import { regionsOf } from '../regions.ts';
import { unlessUnavailable } from '../store-errors.ts';
import type { DynamoDBBase } from './base.ts';
import { IdBlocks } from './id-blocks.ts';
import { IdempotencyRecordItems } from './idempotency-items.ts';
import { petItem } from './pet-item.ts';

/** A pet's conditional put, alone or in the transaction. */
type PetPut = { TableName: string; Item: Record<string, unknown>; ConditionExpression: string };

/** Creates pets in one pets table (the calls and their costs: docs/architecture.md). */
export class DynamoDBPetCreator implements PetCreator {
  /**
   * @param table The pets table. @param ids Its id blocks. @param records The idempotency records.
   * @param now Clock of `createdAt` and the records' expiry, epoch ms. @default Date.now
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly ids: IdBlocks,
    private readonly records: IdempotencyRecordItems,
    private readonly now: () => number = Date.now,
  ) {}

  /** The creator on `base`'s tables and region. @throws Error for an unset or invalid setting. */
  static from({ client, settings }: DynamoDBBase): DynamoDBPetCreator {
    const pets = requiredSetting(settings, 'PETS_TABLE_NAME');
    const records = requiredSetting(settings, 'IDEMPOTENCY_TABLE_NAME');
    const regions = regionsOf(settings);
    return new DynamoDBPetCreator(
      client,
      pets,
      new IdBlocks(client, pets, regions),
      new IdempotencyRecordItems(records, regions),
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
    return unlessUnavailable(async () => {
      const { pet, put, nowMs } = await this.newPetPut(newPet, options.signal);
      try {
        await this.client.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: put }, ...this.records.items(request, pet, nowMs)],
          }),
          { abortSignal: options.signal },
        );
      } catch (error) {
        const outcome = this.records.outcomeOf(error, 1, request);
        if (outcome) return outcome;
        throw error;
      }
      return { status: 'created', result: pet };
    });
  }

  prepareCreate(options: CallOptions = {}): Promise<void> {
    return unlessUnavailable(() => this.ids.prepare(options.signal));
  }

  /** A new pet under the next id, and its conditional put. */
  private async newPetPut(newPet: NewPet, signal: AbortSignal | undefined) {
    const pet = petWithId(newPet, await this.ids.next(signal));
    const nowMs = this.now();
    const put: PetPut = {
      TableName: this.table,
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
}
