/** Lambda entry of createPet (`POST /pets`): `operations/create-pet.ts` on the DynamoDB adapters. */
import { createDynamoDBBase } from '../shared/dynamodb-base.ts';
import { DynamoDBIdempotencyStore } from '../shared/idempotency/dynamodb-idempotency-store.ts';
import { DynamoDBPetStore } from '../shared/pets/dynamodb-pet-store.ts';
import { DynamoDBRateLimiter } from '../shared/rate-limit/dynamodb-rate-limiter.ts';
import { createPetHandler } from './operations/create-pet.ts';

const base = createDynamoDBBase();
// The pet store completes the idempotency record in the pet's own transaction.
const idempotency = DynamoDBIdempotencyStore.from(base);

/** Lambda handler of createPet: API Gateway REST proxy event in, proxy result out. */
export const handler = createPetHandler({
  settings: base.settings,
  pets: DynamoDBPetStore.from(base, { records: idempotency }),
  idempotency,
  rateLimiter: DynamoDBRateLimiter.from(base),
});
