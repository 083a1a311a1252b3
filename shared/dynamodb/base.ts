/** A function's settings and document client, on which its adapters build, and `dynamoDBContainer`. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type FunctionSettings, readFunctionSettings } from '../function-settings.ts';
import { logEachCall } from './call-log.ts';
import { createDocumentClient } from './clients.ts';

/** A function's settings and the one document client its DynamoDB adapters share. */
export interface DynamoDBBase<TSettings extends FunctionSettings = FunctionSettings> {
  readonly settings: TSettings;
  readonly client: DynamoDBDocumentClient;
}

/**
 * The document client `settings` name, logging each call.
 * @throws Error naming the variable when DynamoDB Local lacks credentials.
 */
export function createDynamoDBBase<TSettings extends FunctionSettings>(
  settings: TSettings,
): DynamoDBBase<TSettings> {
  const client = createDocumentClient({ settings });
  logEachCall(client);
  return { settings, client };
}

/**
 * A base read from `env` and each port of `build`, built on first use: a Lambda entry names only
 * its own adapters, so that its bundle carries no other.
 * @throws Error naming an invalid setting; at a port's first use, what its builder throws.
 */
export function dynamoDBContainer<
  Builders extends Readonly<Record<string, (base: DynamoDBBase) => unknown>>,
>(
  build: Builders,
  env: NodeJS.ProcessEnv = process.env,
): DynamoDBBase & { readonly [Name in keyof Builders]: ReturnType<Builders[Name]> } {
  const base = createDynamoDBBase(readFunctionSettings(env));
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
