/** Lambda entry of the authorizer: `operations/authorizer.ts` on the DynamoDB key lookup. */
import { createDynamoDBBase } from '../shared/dynamodb/base.ts';
import { DynamoDBKeyLookup } from '../shared/dynamodb/key-lookup.ts';
import { authorizerHandler } from './operations/authorizer.ts';

const base = createDynamoDBBase();

/** Lambda handler of the authorizer. */
export const handler = authorizerHandler({
  settings: base.settings,
  keys: DynamoDBKeyLookup.from(base),
});
