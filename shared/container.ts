/**
 * What a function's container builds once, at start-up (module scope of `functions/*.ts`): its
 * settings, read from the environment with `SettingsSchema`, and the one DynamoDB document client
 * that its stores and the rate limiter share (one connection pool, one set of bounds).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { logEachCall } from './call-log.ts';
import { createDocumentClient } from './clients.ts';
import { readSettings, type Settings } from './settings.ts';

/** A container's settings and its document client. */
export interface Container {
  readonly settings: Settings;
  readonly client: DynamoDBDocumentClient;
}

/**
 * Reads the settings from `env` and builds the document client they name, which logs the time of
 * each call (`call-log.ts`).
 *
 * @throws Error naming the variable when a setting is invalid, or when a DynamoDB Local endpoint
 *   comes without credentials.
 */
export function createContainer(env: NodeJS.ProcessEnv = process.env): Container {
  const settings = readSettings(env);
  const client = createDocumentClient({ settings });
  logEachCall(client);
  return { settings, client };
}
