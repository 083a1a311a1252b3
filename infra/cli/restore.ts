/**
 * `npm run restore -- --table pets|keys (--to TIME | --from-table NAME) [--apply] …`: the argv entry
 * of the restore command (restore/restore-program.ts, `--help`): the local stack's DynamoDB Local
 * on `DYNAMODB_PORT` (or the DynamoDB of `DYNAMODB_ENDPOINT`) with `.petstore/dynamodb.env`, or a
 * stage.
 */
// The SDK's Node version notice is nothing a user of the command can act on.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import {
  AUDIT_TABLE,
  COUNTERS_TABLE,
  KEYS_TABLE,
  PETS_TABLE,
} from '../../shared/dynamodb/tables.ts';
import { LOCAL_OPERATOR } from '../local/stack-files.ts';
import { commandTables } from './common/local-dynamodb.ts';
import { runMain } from './common/program.ts';
import { RESTORE_STYLE, runRestoreCommand } from './restore/restore-program.ts';

await runMain(import.meta.url, RESTORE_STYLE, (args, output) => {
  const { local, nameOf, client } = commandTables();
  return runRestoreCommand(args, {
    local: {
      ...local,
      petsTableName: nameOf(PETS_TABLE),
      keysTableName: nameOf(KEYS_TABLE),
      auditTableName: nameOf(AUDIT_TABLE),
      countersTableName: nameOf(COUNTERS_TABLE),
    },
    // The principal of the operator's credentials (the actor of each key.restored entry).
    callerArn: async (stage) => {
      if (stage === undefined) return LOCAL_OPERATOR.userArn;
      const { Arn } = await new STSClient({}).send(new GetCallerIdentityCommand({}));
      if (!Arn) throw new Error('STS GetCallerIdentity returned no ARN');
      return Arn;
    },
    // An empty endpoint means AWS.
    openClient: (endpoint = '', region = undefined) => client(endpoint, region),
    dynamodb: new DynamoDBClient({}),
    cloudFormation: new CloudFormationClient({}),
    apiGateway: new APIGatewayClient({}),
    ...output,
  });
});
