/**
 * `npm run keys -- <command> …`: the argv entry of the keys command (keys/program.ts, `--help`):
 * the local stack's DynamoDB Local on `DYNAMODB_PORT` (or the DynamoDB of `DYNAMODB_ENDPOINT`) with
 * `.petstore/dynamodb.env`, or a stage.
 */
import { join } from 'node:path';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { COUNTERS_TABLE, KEYS_TABLE, type TableDefinition } from '../../shared/dynamodb/tables.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/usage.ts';
import { readSettings } from '../../shared/settings.ts';
import { prepareExternalDynamoDB } from '../local/external-dynamodb.ts';
import {
  CREDENTIALS_FILE,
  LOCAL_REGION,
  readCredentials,
  stackDirectory,
} from '../local/stack-files.ts';
import { KEYS_STYLE, runKeysCommand } from './keys/program.ts';
import { runMain } from './program.ts';

await runMain(import.meta.url, KEYS_STYLE, (args, output) => {
  // An invalid setting fails here, before any store is opened.
  const settings = readSettings();
  // Without the file no DynamoDB Local answers with the stack's tables: the command says so.
  const credentials = readCredentials(stackDirectory());
  /** A client of DynamoDB Local with the stack's credentials, or of AWS for an empty endpoint. */
  const client = (endpoint: string) =>
    createDocumentClient({
      endpoint,
      local: endpoint && credentials ? { ...credentials, region: LOCAL_REGION } : undefined,
      settings,
    });
  const external = settings.DYNAMODB_ENDPOINT;
  /** The tables' names as this command opens them (the settings, else the local stack's). */
  const nameOf = (table: TableDefinition) => settings[table.envVar] ?? table.localName;
  return runKeysCommand(args, {
    local: {
      endpoint: external ?? `http://127.0.0.1:${settings.DYNAMODB_PORT}`,
      keysTableName: nameOf(KEYS_TABLE),
      countersTableName: nameOf(COUNTERS_TABLE),
      credentialsFile: join(stackDirectory(), CREDENTIALS_FILE),
      hasCredentials: credentials !== undefined,
      prepare:
        external && credentials
          ? async () => {
              await prepareExternalDynamoDB(external, credentials, nameOf);
            }
          : undefined,
    },
    // An empty endpoint means AWS even when DYNAMODB_ENDPOINT is set in the shell.
    openKeyStore: (tableName, endpoint = '') => new DynamoDBKeyStore(client(endpoint), tableName),
    openRateLimitBans: (tableName, endpoint = '') =>
      new DynamoDBRateLimitBans(client(endpoint), tableName),
    openKeyUsage: (tableName, endpoint = '') => new DynamoDBKeyUsage(client(endpoint), tableName),
    cloudFormation: new CloudFormationClient({}),
    apiGateway: new APIGatewayClient({}),
    ...output,
  });
});
