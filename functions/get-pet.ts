/** Lambda entry of getPet (`GET /pets/{petId}`): `handlers/get-pet.ts` on the DynamoDB adapters. */
import { dynamoDBContainer } from '../shared/dynamodb/base.ts';
import { DynamoDBRateLimiter } from '../shared/dynamodb/dynamodb-rate-limiter.ts';
import { DynamoDBPetReader } from '../shared/dynamodb/pet-reader.ts';
import { getPetHandler } from './handlers/get-pet.ts';

/**
 * The handler on the settings of `env`: Lambda's environment for `handler`; the local gateway
 * passes each function its role's DynamoDB endpoint (infra/local/iam.ts).
 */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return getPetHandler(
    dynamoDBContainer(
      {
        pets: (base) => DynamoDBPetReader.from(base),
        rateLimiter: (base) => DynamoDBRateLimiter.from(base),
      },
      env,
    ),
  );
}

/** Lambda handler of getPet: API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
