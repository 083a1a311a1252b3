/** getPet's port on the pets table: one consistent GetItem (docs/architecture.md). */
import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { requiredSetting } from '../function-settings.ts';
import type { CallOptions, PetReader } from '../pets/pet-store.ts';
import type { Pet } from '../pets/schemas.ts';
import { unlessUnavailable } from '../store-errors.ts';
import type { DynamoDBBase } from './base.ts';
import { petOf } from './pet-item.ts';

/** Reads pets by id from one pets table (partition key `id`). */
export class DynamoDBPetReader implements PetReader {
  /** @param table The pets table. */
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** The reader of `base`'s table `PETS_TABLE_NAME`. @throws Error when it is unset. */
  static from(base: DynamoDBBase): DynamoDBPetReader {
    return new DynamoDBPetReader(base.client, requiredSetting(base.settings, 'PETS_TABLE_NAME'));
  }

  async getPet(id: number, options: CallOptions = {}): Promise<Pet | undefined> {
    const { Item } = await unlessUnavailable(() =>
      this.client.send(
        new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true }),
        { abortSignal: options.signal },
      ),
    );
    return Item ? petOf(Item) : undefined;
  }
}
