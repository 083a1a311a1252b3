/**
 * How the restore command reaches its tables from the process's settings: the local
 * stack's DynamoDB Local on `DYNAMODB_PORT` (or the DynamoDB of `DYNAMODB_ENDPOINT`) with
 * `.petstore/dynamodb.env`, or AWS for a stage.
 */
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../shared/dynamodb/clients.ts';
import type { TableDefinition } from '../../../shared/dynamodb/tables.ts';
import { readSettings } from '../../../shared/settings.ts';
import { prepareExternalDynamoDB } from '../../local/external-dynamodb.ts';
import {
  CREDENTIALS_FILE,
  LOCAL_REGION,
  readCredentials,
  stackDirectory,
} from '../../local/stack-files.ts';

/** A command's way to its tables, from the settings. */
export interface CommandTables {
  /** The local stack's DynamoDB: its URL, the credentials file and whether it holds them. */
  readonly local: LocalDynamoDB;
  /** A table's name as the command opens it: its setting, else the local stack's name. */
  readonly nameOf: (table: TableDefinition) => string;
  /**
   * A document client of DynamoDB Local with the stack's credentials, or of AWS for an empty
   * endpoint (even when `DYNAMODB_ENDPOINT` is set in the shell), in `region` when given.
   */
  readonly client: (endpoint: string, region?: string) => DynamoDBDocumentClient;
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
    client: (endpoint, region) =>
      createDocumentClient({
        endpoint,
        region,
        local: endpoint && credentials ? { ...credentials, region: LOCAL_REGION } : undefined,
        settings,
      }),
  };
}

/** The local stack's DynamoDB as a command reaches it: its URL, credentials, and readying. */
export interface LocalDynamoDB {
  /** DynamoDB Local's URL (or `DYNAMODB_ENDPOINT`'s). */
  readonly endpoint: string;
  /** The file of the stack's credentials, and whether it holds them. */
  readonly credentialsFile: string;
  readonly hasCredentials: boolean;
  /**
   * Readies a DynamoDB brought by the user (`DYNAMODB_ENDPOINT` is `endpoint`): throws one line
   * when it does not answer, creates the tables it lacks.
   * @default - none: the endpoint is the DynamoDB Local of `npm start`, which created them
   */
  readonly prepare?: () => Promise<void>;
}

/**
 * Readies the local stack's DynamoDB for a command (the keys and restore commands).
 *
 * @returns How messages name it (`DynamoDB Local at …`), and how a failure on one of its tables
 *   reads: not answering, or no such table, each with what to do.
 * @throws Error when the local stack has no credentials file yet (it was never started), or a
 *   `DYNAMODB_ENDPOINT` of the user's does not answer.
 */
export async function openLocalDynamoDB(local: LocalDynamoDB): Promise<{
  readonly where: string;
  readonly explain: (error: unknown, tableName: string) => Error;
}> {
  if (!local.hasCredentials) {
    throw new Error(
      `No DynamoDB Local credentials in ${local.credentialsFile}: start the local stack once with \`npm start\`, which creates them.`,
    );
  }
  await local.prepare?.();
  const where = local.prepare
    ? `DynamoDB at ${local.endpoint} (DYNAMODB_ENDPOINT)`
    : `DynamoDB Local at ${local.endpoint}`;
  return {
    where,
    explain: (error, tableName) => {
      if ((error as { code?: unknown } | undefined)?.code === 'ECONNREFUSED') {
        return new Error(
          `${where} does not answer: start the local stack with \`npm start\`, or set DYNAMODB_PORT to the DynamoDB Local port of the one running.`,
          { cause: error },
        );
      }
      if ((error as Error).name === 'ResourceNotFoundException') {
        return new Error(
          `${where} has no table ${tableName}: start the local stack with \`npm start\`, which creates it.`,
          { cause: error },
        );
      }
      return error as Error;
    },
  };
}
