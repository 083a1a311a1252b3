/** The tables of a DynamoDBPetStore in a test: its own pets table, the test stack's records. */
import type { DynamoDBPetStoreTables } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { IDEMPOTENCY_TABLE } from '../../shared/dynamodb/tables.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';

/**
 * The pets table `pets` beside the idempotency table of the test stack's settings
 * (`IDEMPOTENCY_TABLE_NAME`). @throws Error when that setting is unset.
 */
export function petTables(pets: string): DynamoDBPetStoreTables {
  return { pets, idempotency: requiredSetting(readSettings(), IDEMPOTENCY_TABLE.envVar) };
}
