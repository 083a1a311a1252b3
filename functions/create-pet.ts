/** Lambda entry of createPet (`POST /pets`): `operations/create-pet.ts` on the DynamoDB adapters. */
import { createDynamoDBBase } from '../shared/dynamodb/base.ts';
import { DynamoDBIdempotencyStore } from '../shared/dynamodb/idempotency-store.ts';
import { DynamoDBPetStore } from '../shared/dynamodb/pet-store.ts';
import { DynamoDBRateLimiter } from '../shared/dynamodb/rate-limiter.ts';
import { createPetHandler } from './operations/create-pet.ts';

const base = createDynamoDBBase();

/** Lambda handler of createPet: API Gateway REST proxy event in, proxy result out. */
export const handler = createPetHandler({
  settings: base.settings,
  // The pet store writes the idempotency record in the pet's own transaction.
  pets: DynamoDBPetStore.from(base, { records: DynamoDBIdempotencyStore.from(base) }),
  rateLimiter: DynamoDBRateLimiter.from(base),
});
