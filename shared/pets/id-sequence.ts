/** The pet-id sequence: item `id` 0 of the pets table, `value` the last id issued, an atomic `ADD`. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

/** Partition key of the pets-table item that holds the pet-id sequence (no pet has id 0). */
export const PET_ID_SEQUENCE_ID = 0;

/** Name of the counters-table item that held the pet-id sequence before it moved (read-only). */
export const LEGACY_PET_ID_SEQUENCE = 'pet-id';

/** How far above the old counter the moved sequence starts (docs/architecture.md). */
export const SEQUENCE_MIGRATION_GAP = 1_000_000;

/** Table names the pet store works on. */
export interface DynamoDBPetStoreTables {
  /** The pets table (partition key `id`, GSI `status-index`), holding the pet-id sequence. */
  pets: string;
  /**
   * The counters table, read once for the sequence's old value (item `pet-id`).
   * @default - no old value to continue from
   */
  legacyCounters?: string;
}

/** Issues pet ids: positive safe integers, unique under concurrent creates, never reused. */
export class PetIdSequence {
  /**
   * @param highestPetId The highest pet id in the table (0 when none), read once to seed the item.
   */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tables: DynamoDBPetStoreTables,
    private readonly highestPetId: (signal: AbortSignal | undefined) => Promise<number>,
  ) {}

  /** The next pet id: `ADD value 1` on the sequence item, seeding it first if it does not exist. */
  async next(signal: AbortSignal | undefined): Promise<number> {
    try {
      return await this.increment(signal);
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    await this.seed(signal);
    return this.increment(signal);
  }

  private async increment(signal: AbortSignal | undefined): Promise<number> {
    const { Attributes } = await this.client.send(
      new UpdateCommand({
        TableName: this.tables.pets,
        Key: { id: PET_ID_SEQUENCE_ID },
        UpdateExpression: 'ADD #value :one',
        ConditionExpression: 'attribute_exists(#value)',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'UPDATED_NEW',
      }),
      { abortSignal: signal },
    );
    return Number(Attributes?.value);
  }

  /** Creates the sequence item once per table above every id issued; the first of a race wins. */
  private async seed(signal: AbortSignal | undefined): Promise<void> {
    const [legacy, highest] = await Promise.all([
      this.legacyValue(signal),
      this.highestPetId(signal),
    ]);
    const value = Math.max(highest, legacy === undefined ? 0 : legacy + SEQUENCE_MIGRATION_GAP);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tables.pets,
          Item: { id: PET_ID_SEQUENCE_ID, value },
          ConditionExpression: 'attribute_not_exists(id)',
        }),
        { abortSignal: signal },
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** The old counter's value, or `undefined` when there is none (or no counters table). */
  private async legacyValue(signal: AbortSignal | undefined): Promise<number | undefined> {
    if (!this.tables.legacyCounters) return undefined;
    try {
      const { Item } = await this.client.send(
        new GetCommand({
          TableName: this.tables.legacyCounters,
          Key: { name: LEGACY_PET_ID_SEQUENCE },
          ConsistentRead: true,
        }),
        { abortSignal: signal },
      );
      return Item ? Number(Item.value) : undefined;
    } catch (error) {
      if ((error as Error).name === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  }
}
