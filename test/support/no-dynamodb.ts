/**
 * vitest setup file of the `unit` project (test/unit/, no DynamoDB Local started): every DynamoDB
 * call fails at once with {@link NO_DYNAMODB}, rather than waiting on a connection or reaching
 * for AWS, so that no unit test needs Java without saying so.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The error message of a DynamoDB call in the `unit` project. */
export const NO_DYNAMODB =
  'test/unit/ runs without DynamoDB Local (npm run test:unit): a test that calls DynamoDB belongs under test/dynamodb/';

for (const client of [DynamoDBClient, DynamoDBDocumentClient]) {
  Object.defineProperty(client.prototype, 'send', {
    configurable: true,
    writable: true,
    value: async function refuseDynamoDB(): Promise<never> {
      throw new Error(NO_DYNAMODB);
    },
  });
}
