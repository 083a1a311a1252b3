/**
 * The restore command run in-process on the test file's tables on DynamoDB Local (a "deployed
 * stage" is those tables too, CloudFormation and API Gateway mocked as for the keys command, and
 * the stage's DynamoDB point-in-time calls mocked), and good copies of its tables to restore from.
 */

import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  type RestoreCommandDependencies,
  runRestoreCommand,
} from '../../infra/cli/restore/restore-program.ts';
import { scanTable } from '../../infra/cli/restore/table-io.ts';
import { createTable } from '../../infra/local/create-tables.ts';
import { DynamoDBAuditLog } from '../../shared/dynamodb/audit-log.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { KEYS_TABLE, PETS_TABLE, type TableDefinition } from '../../shared/dynamodb/tables.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';

export { apiGateway, apiGatewayCalls, cloudFormation, usagePlanId } from './stage-mocks.ts';

/** The run's DynamoDB Local. */
export const endpoint = requiredSetting(readSettings(), 'DYNAMODB_ENDPOINT');
/** A client of the run's DynamoDB Local. */
export const documentClient = createDocumentClient();
/** The test file's live tables. */
export const liveTables = {
  pets: requiredSetting(readSettings(), PETS_TABLE.envVar),
  keys: requiredSetting(readSettings(), KEYS_TABLE.envVar),
  counters: requiredSetting(readSettings(), 'COUNTERS_TABLE_NAME'),
  audit: requiredSetting(readSettings(), 'AUDIT_TABLE_NAME'),
} as const;

/** The principal the restore command runs as in the tests (its `key.restored` entries' actor). */
export const RESTORE_CALLER = 'arn:aws:sts::111111111111:assumed-role/petstore-operators/bob';

/** The stage's DynamoDB on AWS, for `--to`: mocked (DynamoDB Local has no point-in-time recovery). */
export const stageDynamoDB = new DynamoDBClient({ region: 'us-east-1' });
export const pointInTime = mockClient(stageDynamoDB);

/** This file's tables on the run's DynamoDB Local, as the local stack's restore command sees them. */
export const localStack: RestoreCommandDependencies['local'] = {
  endpoint,
  petsTableName: liveTables.pets,
  keysTableName: liveTables.keys,
  auditTableName: liveTables.audit,
  countersTableName: liveTables.counters,
  credentialsFile: '.petstore/dynamodb.env',
  hasCredentials: true,
};

/**
 * Runs the command in-process against this file's tables; its exit code, and stdout and stderr
 * as lines. `client` replaces the client of the tables (e.g. one that races a write).
 */
export async function restoreCommand(
  args: string[],
  client?: DynamoDBDocumentClient,
): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runRestoreCommand(args, {
    local: localStack,
    // Without an endpoint (a deployed stage) the client falls back to DYNAMODB_ENDPOINT.
    openClient: (at) => client ?? createDocumentClient({ endpoint: at }),
    dynamodb: stageDynamoDB,
    cloudFormation: new CloudFormationClient({ region: 'us-east-1' }),
    apiGateway: new APIGatewayClient({ region: 'us-east-1' }),
    callerArn: async () => RESTORE_CALLER,
    stdout: (text) => stdout.push(...text.split('\n')),
    stderr: (text) => stderr.push(...text.split('\n')),
  });
  return { code, stdout, stderr };
}

/**
 * A copy of a table as it is now, under `name`: created with the table's definition, holding
 * every item (a good copy, as a restore from a backup would give).
 */
export async function copyTable(
  definition: TableDefinition,
  from: string,
  name: string,
): Promise<string> {
  await createTable(documentClient, definition, name);
  const items = await scanTable(documentClient, from);
  for (let at = 0; at < items.length; at += 25) {
    const batch = items.slice(at, at + 25).map((Item) => ({ PutRequest: { Item } }));
    await documentClient.send(new BatchWriteCommand({ RequestItems: { [name]: batch } }));
  }
  return name;
}

/** Deletes an item of a live table by its partition key, as an operator's slip would. */
export async function deleteItem(tableName: string, key: Record<string, unknown>): Promise<void> {
  await documentClient.send(new DeleteCommand({ TableName: tableName, Key: key }));
}

/** Writes an item into a table as it is, as a bad deploy would. */
export async function putItem(tableName: string, item: Record<string, unknown>): Promise<void> {
  await documentClient.send(new PutCommand({ TableName: tableName, Item: item }));
}

/** The current token's row of a key in the live keys table, as stored, or `undefined`. */
export async function liveKey(keyId: string) {
  const audit = new DynamoDBAuditLog(documentClient, liveTables.audit, 400);
  return (await new DynamoDBKeyStore(documentClient, liveTables.keys, audit).tokensOf(keyId))
    ?.current;
}
