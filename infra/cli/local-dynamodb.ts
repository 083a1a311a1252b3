/**
 * How the keys and restore commands reach their tables from the process's settings: the local
 * stack's DynamoDB Local on `DYNAMODB_PORT` (or the DynamoDB of `DYNAMODB_ENDPOINT`) with
 * `.petstore/dynamodb.env`, or AWS for a stage.
 */
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import type { TableDefinition } from '../../shared/dynamodb/tables.ts';
import { readSettings } from '../../shared/settings.ts';
import { prepareExternalDynamoDB } from '../local/external-dynamodb.ts';
import {
  CREDENTIALS_FILE,
  LOCAL_REGION,
  readCredentials,
  stackDirectory,
} from '../local/stack-files.ts';
import type { LocalDynamoDB } from './keys/target.ts';

/** A command's way to its tables, from the settings. */
export interface CommandTables {
  /** The local stack's DynamoDB: its URL, the credentials file and whether it holds them. */
  readonly local: LocalDynamoDB;
  /** A table's name as the command opens it: its setting, else the local stack's name. */
  readonly nameOf: (table: TableDefinition) => string;
  /**
   * A document client of DynamoDB Local with the stack's credentials, or of AWS for an empty
   * endpoint (even when `DYNAMODB_ENDPOINT` is set in the shell).
   */
  readonly client: (endpoint: string) => DynamoDBDocumentClient;
}

/**
 * Reads the settings and the local stack's credentials file.
 *
 * @throws Error for an invalid setting, before any table is opened.
 */
export function commandTables(): CommandTables {
  const settings = readSettings();
  // Without the file no DynamoDB Local answers with the stack's tables: the command says so.
  const credentials = readCredentials(stackDirectory());
  const external = settings.DYNAMODB_ENDPOINT;
  const nameOf = (table: TableDefinition) => settings[table.envVar] ?? table.localName;
  return {
    local: {
      endpoint: external ?? `http://127.0.0.1:${settings.DYNAMODB_PORT}`,
      credentialsFile: join(stackDirectory(), CREDENTIALS_FILE),
      hasCredentials: credentials !== undefined,
      prepare:
        external && credentials
          ? async () => {
              await prepareExternalDynamoDB(external, credentials, nameOf);
            }
          : undefined,
    },
    nameOf,
    client: (endpoint) =>
      createDocumentClient({
        endpoint,
        local: endpoint && credentials ? { ...credentials, region: LOCAL_REGION } : undefined,
        settings,
      }),
  };
}
