/** Lambda entry of createPet (`POST /pets`): `handlers/create-pet.ts` on the DynamoDB adapters. */
import { dynamoDBContainer } from '../shared/dynamodb/base.ts';
import { DynamoDBRateLimiter } from '../shared/dynamodb/dynamodb-rate-limiter.ts';
import { DynamoDBPetCreator } from '../shared/dynamodb/pet-creator.ts';
import { createPetHandler } from './handlers/create-pet.ts';

/**
 * The handler on the settings of `env`: Lambda's environment for `handler`; the local gateway
 * passes each function its role's DynamoDB endpoint (infra/local/iam.ts).
 */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return createPetHandler(
    dynamoDBContainer(
      {
        // The pet and its idempotency record in one transaction; ids from the instance's blocks.
        pets: (base) => DynamoDBPetCreator.from(base),
        rateLimiter: (base) => DynamoDBRateLimiter.from(base),
      },
      env,
    ),
  );
}

/** Lambda handler of createPet: API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
