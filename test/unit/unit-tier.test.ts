/**
 * The `unit` project's guard (test/support/no-dynamodb.ts): a DynamoDB call fails at once, naming
 * where a test that needs DynamoDB Local belongs.
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { NO_DYNAMODB } from '../support/no-dynamodb.ts';

describe('the unit tier', () => {
  // A port where nothing listens: without the guard, the calls would fail on the connection.
  const endpoint = 'http://127.0.0.1:9';
  const credentials = { accessKeyId: 'unit', secretAccessKey: 'unit' };

  it('refuses a document client call, naming test/dynamodb/', async () => {
    const client = createDocumentClient({ endpoint, local: credentials });

    await expect(
      client.send(new GetCommand({ TableName: 'pets', Key: { id: 1 } })),
    ).rejects.toThrow(NO_DYNAMODB);
  });

  it('refuses a DynamoDB client call, naming test/dynamodb/', async () => {
    const client = new DynamoDBClient({
      endpoint,
      credentials,
      region: 'us-east-1',
      maxAttempts: 1,
    });

    await expect(client.send(new ListTablesCommand({}))).rejects.toThrow(NO_DYNAMODB);
  });
});
