/** Lambda entry of getPet (`GET /pets/{petId}`): `operations/get-pet.ts` on the DynamoDB adapters. */
import { dynamoDBContainer } from '../shared/dynamodb/base.ts';
import { DynamoDBPetTable } from '../shared/dynamodb/pet-table.ts';
import { DynamoDBRateLimiter } from '../shared/dynamodb/rate-limiter.ts';
import { getPetHandler } from './operations/get-pet.ts';

/** Lambda handler of getPet: API Gateway REST proxy event in, proxy result out. */
export const handler = getPetHandler(
  dynamoDBContainer({
    pets: (base) => DynamoDBPetTable.from(base),
    rateLimiter: (base) => DynamoDBRateLimiter.from(base),
  }),
);
