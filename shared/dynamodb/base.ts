/**
 * A function's settings and document client, from which each DynamoDB adapter builds itself, and
 * the one way a container of adapters is assembled on them (`dynamoDBContainer`).
 */
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

/**
 * A container on one base read from `env`: its settings, its document client and each port of
 * `build`, built on first use from that base. A Lambda entry (`functions/*.ts`) names only the
 * adapters its function calls, so that its bundle carries no other; `createContainer` names all.
 * @throws Error naming the variable when a setting is invalid; at a port's first use, what its
 *   builder throws (e.g. its table's name missing).
 */
export function dynamoDBContainer<
  Builders extends Readonly<Record<string, (base: DynamoDBBase) => unknown>>,
>(
  build: Builders,
  env: NodeJS.ProcessEnv = process.env,
): DynamoDBBase & { readonly [Name in keyof Builders]: ReturnType<Builders[Name]> } {
  const base = createDynamoDBBase(env);
  const container = { ...base };
  for (const [name, builder] of Object.entries(build)) {
    let port: unknown;
    Object.defineProperty(container, name, {
      enumerable: true,
      get: () => (port ??= builder(base)),
    });
  }
  return container as DynamoDBBase & { [Name in keyof Builders]: ReturnType<Builders[Name]> };
}
