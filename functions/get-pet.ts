/** Lambda entry of getPet (`GET /pets/{petId}`): `operations/get-pet.ts` on the DynamoDB adapters. */
import { createDynamoDBBase } from '../shared/dynamodb/base.ts';
import { DynamoDBPetStore } from '../shared/dynamodb/pet-store.ts';
import { DynamoDBRateLimiter } from '../shared/dynamodb/rate-limiter.ts';
import { getPetHandler } from './operations/get-pet.ts';

const base = createDynamoDBBase();

/** Lambda handler of getPet: API Gateway REST proxy event in, proxy result out. */
export const handler = getPetHandler({
  settings: base.settings,
  pets: DynamoDBPetStore.from(base),
  rateLimiter: DynamoDBRateLimiter.from(base),
});
