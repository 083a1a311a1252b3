/** A function's settings and document client, from which each DynamoDB adapter builds itself. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readSettings, type Settings } from '../settings.ts';
import { logEachCall } from './call-log.ts';
import { createDocumentClient } from './clients.ts';

/** A function's settings and the one document client its DynamoDB adapters share. */
export interface DynamoDBBase {
  readonly settings: Settings;
  readonly client: DynamoDBDocumentClient;
}

/**
 * Reads the settings from `env` and builds the document client they name, which logs the time of
 * each call (`call-log.ts`).
 * @throws Error naming the variable when a setting is invalid, or when a DynamoDB Local endpoint
 *   comes without credentials.
 */
export function createDynamoDBBase(env: NodeJS.ProcessEnv = process.env): DynamoDBBase {
  const settings = readSettings(env);
  const client = createDocumentClient({ settings });
  logEachCall(client);
  return { settings, client };
}
