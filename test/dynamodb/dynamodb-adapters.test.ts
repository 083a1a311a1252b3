/**
 * The DynamoDB adapters, as `createContainer` builds them on this file's tables in DynamoDB
 * Local (the pet store with the test's clock), pass the contracts of their ports, the same suites as the in-memory adapters
 * (test/unit/in-memory-adapters.test.ts).
 */
import { afterAll } from 'vitest';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { DynamoDBPetStore } from '../../shared/dynamodb/dynamodb-pet-store.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { requiredSetting } from '../../shared/settings.ts';
import { keyStoreContract } from '../support/key-store-contract.ts';
import { petStoreContract } from '../support/pet-store-contract.ts';
import { CONTRACT_SPREAD_POLICY, rateLimiterContract } from '../support/rate-limiter-contract.ts';
import { seedKey } from '../support/test-keys.ts';

const container = createContainer();
afterAll(() => container.client.destroy());

petStoreContract('DynamoDB', (now) => DynamoDBPetStore.from(container, { now }));
rateLimiterContract(
  'DynamoDB',
  (policy) =>
    new DynamoDBRateLimiter(
      container.client,
      requiredSetting(container.settings, 'COUNTERS_TABLE_NAME'),
      policy,
      CONTRACT_SPREAD_POLICY,
    ),
);
keyStoreContract('DynamoDB', () => ({
  lookup: container.keys,
  seedKey: (input, fields) =>
    seedKey(input, fields, {
      client: container.client,
      tableName: requiredSetting(container.settings, 'KEYS_TABLE_NAME'),
    }),
}));
