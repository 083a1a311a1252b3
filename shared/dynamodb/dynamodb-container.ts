/** The functions' DynamoDB adapters on one client: the local stack's, tests' and benches' root. */
import type { Container } from '../container.ts';
import { type DynamoDBBase, dynamoDBContainer } from './base.ts';
import { DynamoDBKeyLookup } from './dynamodb-key-lookup.ts';
import { DynamoDBPetStore } from './dynamodb-pet-store.ts';
import { DynamoDBRateLimiter } from './dynamodb-rate-limiter.ts';

/** The container of a deployed or local function: its adapters share `client`. */
export interface DynamoDBContainer extends Container, DynamoDBBase {}

/**
 * Every DynamoDB adapter on the settings of `env` and one document client, each built on first use
 * (the pet store on `PETS_TABLE_NAME` and `IDEMPOTENCY_TABLE_NAME`). A Lambda
 * entry names only its own adapters instead (`functions/*.ts`, with `dynamoDBContainer`).
 * @throws Error naming the variable when a setting is invalid; at an adapter's first use, when its
 *   table's name is missing.
 */
export function createContainer(env: NodeJS.ProcessEnv = process.env): DynamoDBContainer {
  return dynamoDBContainer(
    {
      pets: (base) => DynamoDBPetStore.from(base),
      rateLimiter: (base) => DynamoDBRateLimiter.from(base),
      keys: (base) => DynamoDBKeyLookup.from(base),
    },
    env,
  );
}
