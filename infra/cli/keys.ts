/**
 * `npm run keys -- <command> …`: the argv entry of the keys command (keys/program.ts, `--help`):
 * the local stack's DynamoDB Local on `DYNAMODB_PORT` (or the DynamoDB of `DYNAMODB_ENDPOINT`) with
 * `.petstore/dynamodb.env`, or a stage.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { COUNTERS_TABLE, KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/usage.ts';
import { KEYS_STYLE, runKeysCommand } from './keys/program.ts';
import { commandTables } from './local-dynamodb.ts';
import { runMain } from './program.ts';

await runMain(import.meta.url, KEYS_STYLE, (args, output) => {
  const { local, nameOf, client } = commandTables();
  return runKeysCommand(args, {
    local: {
      ...local,
      keysTableName: nameOf(KEYS_TABLE),
      countersTableName: nameOf(COUNTERS_TABLE),
    },
    // An empty endpoint means AWS.
    openKeyStore: (tableName, endpoint = '') => new DynamoDBKeyStore(client(endpoint), tableName),
    openRateLimitBans: (tableName, endpoint = '') =>
      new DynamoDBRateLimitBans(client(endpoint), tableName),
    openKeyUsage: (tableName, endpoint = '') => new DynamoDBKeyUsage(client(endpoint), tableName),
    cloudFormation: new CloudFormationClient({}),
    apiGateway: new APIGatewayClient({}),
    ...output,
  });
});
