/**
 * The cold-start floor of `bench/cold-start.ts`: a handler that only builds a document client and
 * sends one GetItem, what every function needs at the least. Never deployed.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

/** The pet stored under `event.id`, if any. */
export async function handler(event: { id: number }): Promise<Record<string, unknown> | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: process.env.PETS_TABLE_NAME, Key: { id: event.id } }),
  );
  return Item;
}
