/**
 * The in-memory adapters of test/support pass the contracts of their ports, the same suites as
 * the DynamoDB adapters (test/dynamodb/dynamodb-adapters.test.ts). No DynamoDB is used.
 */
import { InMemoryIdempotencyStore } from '../support/in-memory-idempotency-store.ts';
import { InMemoryKeyStore } from '../support/in-memory-key-store.ts';
import { InMemoryPetStore } from '../support/in-memory-pet-store.ts';
import { InMemoryRateLimiter } from '../support/in-memory-rate-limiter.ts';
import { keyStoreContract } from '../support/key-store-contract.ts';
import { petStoreContract } from '../support/pet-store-contract.ts';
import { rateLimiterContract } from '../support/rate-limiter-contract.ts';

petStoreContract('in memory', (now) => new InMemoryPetStore(new InMemoryIdempotencyStore(), now));
rateLimiterContract('in memory', (policy) => new InMemoryRateLimiter(policy));
keyStoreContract('in memory', () => {
  const store = new InMemoryKeyStore();
  return { lookup: store, seedKey: (input, fields) => store.seedKey(input, fields) };
});
