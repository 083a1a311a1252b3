/** Lambda entry of listPets (`GET /pets`): `handlers/list-pets.ts` on the DynamoDB adapters. */
import { dynamoDBContainer } from '../shared/dynamodb/base.ts';
import { DynamoDBRateLimiter } from '../shared/dynamodb/dynamodb-rate-limiter.ts';
import { StatusIndex } from '../shared/dynamodb/status-index.ts';
import { PageCache } from '../shared/pets/page-cache.ts';
import { listPetsHandler } from './handlers/list-pets.ts';

/**
 * The handler on the settings of `env`: Lambda's environment for `handler`; the local gateway
 * passes each function its role's DynamoDB endpoint (infra/local/iam.ts).
 */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return listPetsHandler(
    dynamoDBContainer(
      {
        // Module scope: the instance keeps its pages across invocations (docs/architecture.md).
        pets: (base) => StatusIndex.from(base, { now: Date.now, cache: new PageCache() }),
        rateLimiter: (base) => DynamoDBRateLimiter.from(base),
      },
      env,
    ),
  );
}

/** Lambda handler of listPets: API Gateway REST proxy event in, proxy result out. */
export const handler = createHandler();
