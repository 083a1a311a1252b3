/** Lambda entry of the authorizer: `operations/authorizer.ts` on the DynamoDB key lookup. */
import { dynamoDBContainer } from '../shared/dynamodb/base.ts';
import { DynamoDBKeyLookup } from '../shared/dynamodb/key-lookup.ts';
import { authorizerHandler } from './operations/authorizer.ts';

/** Lambda handler of the authorizer. */
export const handler = authorizerHandler(
  dynamoDBContainer({ keys: (base) => DynamoDBKeyLookup.from(base) }),
);
