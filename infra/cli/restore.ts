/**
 * `npm run restore -- --table pets|keys (--to TIME | --from-table NAME) [--apply] …`: the argv entry
 * of the restore command (restore/program.ts, `--help`): the local stack's DynamoDB Local on
 * `DYNAMODB_PORT` (or the DynamoDB of `DYNAMODB_ENDPOINT`) with `.petstore/dynamodb.env`, or a stage.
 */
// The SDK's Node version notice is nothing a user of the command can act on.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { join } from 'node:path';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { KEYS_TABLE, PETS_TABLE, type TableDefinition } from '../../shared/dynamodb/tables.ts';
import { readSettings } from '../../shared/settings.ts';
import { prepareExternalDynamoDB } from '../local/external-dynamodb.ts';
import {
  CREDENTIALS_FILE,
  LOCAL_REGION,
  readCredentials,
  stackDirectory,
} from '../local/stack-files.ts';
import { runMain } from './program.ts';
import { RESTORE_STYLE, runRestoreCommand } from './restore/program.ts';

await runMain(import.meta.url, RESTORE_STYLE, (args, output) => {
  // An invalid setting fails here, before any table is opened.
  const settings = readSettings();
  const credentials = readCredentials(stackDirectory());
  const external = settings.DYNAMODB_ENDPOINT;
  /** The tables' names as this command opens them (the settings, else the local stack's). */
  const nameOf = (table: TableDefinition) => settings[table.envVar] ?? table.localName;
  return runRestoreCommand(args, {
    local: {
      endpoint: external ?? `http://127.0.0.1:${settings.DYNAMODB_PORT}`,
      petsTableName: nameOf(PETS_TABLE),
      keysTableName: nameOf(KEYS_TABLE),
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
    openClient: (endpoint = '') =>
      createDocumentClient({
        endpoint,
        local: endpoint && credentials ? { ...credentials, region: LOCAL_REGION } : undefined,
        settings,
      }),
    dynamodb: new DynamoDBClient({}),
    cloudFormation: new CloudFormationClient({}),
    apiGateway: new APIGatewayClient({}),
    ...output,
  });
});
