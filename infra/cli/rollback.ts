/**
 * `npm run rollback -- --stage staging|production [--operation listPets|createPet|getPet]`: the
 * argv entry of the rollback command (see `rollback/program.ts`, and `--help`). AWS credentials
 * and region come from the default chain. Exit status: 0 done, 1 failed, 2 usage error.
 */
// The SDK's Node version notice is nothing a user of the command can act on (Node 20.19+ is supported).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { runRollbackCommand } from './rollback/program.ts';

process.exitCode = await runRollbackCommand(process.argv.slice(2), {
  cloudFormation: new CloudFormationClient({}),
  codeDeploy: new CodeDeployClient({}),
  lambda: new LambdaClient({}),
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
