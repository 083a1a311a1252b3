/** Lambda entry of the authorizer: `handlers/authorizer.ts` on the DynamoDB key lookup. */
import { dynamoDBContainer } from '../shared/dynamodb/base.ts';
import { DynamoDBKeyLookup } from '../shared/dynamodb/dynamodb-key-lookup.ts';
import { authorizerHandler } from './handlers/authorizer.ts';

/**
 * The handler on the settings of `env`: Lambda's environment for `handler`; the local gateway
 * passes each function its role's DynamoDB endpoint (infra/local/iam.ts).
 */
export function createHandler(env: NodeJS.ProcessEnv = process.env) {
  return authorizerHandler(
    dynamoDBContainer({ keys: (base) => DynamoDBKeyLookup.from(base) }, env),
  );
}

/** Lambda handler of the authorizer. */
export const handler = createHandler();
