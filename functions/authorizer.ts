/** Lambda entry of the authorizer: `operations/authorizer.ts` on the DynamoDB key store. */
import { createDynamoDBBase } from '../shared/dynamodb/base.ts';
import { DynamoDBKeyStore } from '../shared/dynamodb/key-store.ts';
import { authorizerHandler } from './operations/authorizer.ts';

const base = createDynamoDBBase();

/** Lambda handler of the authorizer. */
export const handler = authorizerHandler({
  settings: base.settings,
  keys: DynamoDBKeyStore.from(base),
});
