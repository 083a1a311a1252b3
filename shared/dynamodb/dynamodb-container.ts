/** The functions' DynamoDB adapters on one client: the local stack's, tests' and benches' root. */
import type { Container } from '../container.ts';
import { type DynamoDBBase, dynamoDBContainer } from './base.ts';
import { DynamoDBKeyLookup } from './dynamodb-key-lookup.ts';
import { DynamoDBPetStore } from './dynamodb-pet-store.ts';
import { DynamoDBRateLimiter } from './dynamodb-rate-limiter.ts';

/** The container of a deployed or local function: its adapters share `client`. */
export interface DynamoDBContainer extends Container, DynamoDBBase {}

/**
 * Every DynamoDB adapter on the settings of `env`, each built on first use.
 * @throws Error naming an invalid setting; at an adapter's first use, a missing table name.
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
