/**
 * `npm run keys -- create|list|roll|set-expiry|set-plan|revoke|unban|usage|check …`: the argv entry of the keys command (see
 * `keys/program.ts`, and `--help`, for what it does).
 *
 * Configuration: the local stack is DynamoDB Local at `http://127.0.0.1:${DYNAMODB_PORT ?? 8000}`,
 * reached with the stack's credentials from `.petstore/dynamodb.env` (`PETSTORE_DIR` moves it),
 * with the keys table `KEYS_TABLE_NAME ?? petstore-keys` and the counters table
 * `COUNTERS_TABLE_NAME ?? petstore-counters` (the overrides let tests point the command at their
 * own tables); a deployed stage uses the default AWS credential chain and region.
 * Exit status: 0 done, 1 failed, 2 usage error.
 */
import { join } from 'node:path';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { createDocumentClient } from '../../shared/clients.ts';
import { DynamoDBKeyStore } from '../../shared/keys/store.ts';
import { DynamoDBRateLimitBans } from '../../shared/rate-limit/bans.ts';
import { DynamoDBKeyUsage } from '../../shared/rate-limit/usage.ts';
import { readSettings, type Settings } from '../../shared/settings.ts';
import { COUNTERS_TABLE, KEYS_TABLE } from '../../shared/tables.ts';
import {
  CREDENTIALS_FILE,
  LOCAL_REGION,
  readCredentials,
  stackDirectory,
} from '../local/stack-files.ts';
import { runKeysCommand } from './keys/program.ts';

const settings = settingsOrExit();

// Without the file no DynamoDB Local answers with the stack's tables: the command says so.
const localCredentials = readCredentials(stackDirectory());

process.exitCode = await runKeysCommand(process.argv.slice(2), {
  local: {
    endpoint: `http://127.0.0.1:${settings.DYNAMODB_PORT}`,
    keysTableName: settings.KEYS_TABLE_NAME ?? KEYS_TABLE.localName,
    countersTableName: settings.COUNTERS_TABLE_NAME ?? COUNTERS_TABLE.localName,
    credentialsFile: join(stackDirectory(), CREDENTIALS_FILE),
    hasCredentials: localCredentials !== undefined,
  },
  // An empty endpoint means AWS even when DYNAMODB_ENDPOINT is set in the shell.
  openKeyStore: (tableName, endpoint = '') =>
    new DynamoDBKeyStore(localClient(endpoint), tableName),
  openRateLimitBans: (tableName, endpoint = '') =>
    new DynamoDBRateLimitBans(localClient(endpoint), tableName),
  openKeyUsage: (tableName, endpoint = '') =>
    new DynamoDBKeyUsage(localClient(endpoint), tableName),
  cloudFormation: new CloudFormationClient({}),
  apiGateway: new APIGatewayClient({}),
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});

/** A client of DynamoDB Local with the stack's credentials, or of AWS for an empty endpoint. */
function localClient(endpoint: string) {
  return createDocumentClient({
    endpoint,
    local: endpoint && localCredentials ? { ...localCredentials, region: LOCAL_REGION } : undefined,
    settings,
  });
}

/** The settings; an invalid one is reported as one line, `keys: <message>`, and exit status 1. */
function settingsOrExit(): Settings {
  try {
    return readSettings();
  } catch (error) {
    process.stderr.write(`keys: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
