/**
 * `npm run rollback -- --stage staging|production [--region R] [--operation <operationId>]`: the
 * argv entry of the rollback command (rollback/rollback-program.ts); AWS credentials from the
 * default chain.
 */
// The SDK's Node version notice is nothing a user of the command can act on.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CodeDeployClient } from '@aws-sdk/client-codedeploy';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { runMain } from './common/program.ts';
import { sdkRegion } from './common/stage-stacks.ts';
import { ROLLBACK_STYLE, runRollbackCommand } from './rollback/rollback-program.ts';

await runMain(import.meta.url, ROLLBACK_STYLE, (args, output) =>
  runRollbackCommand(args, {
    clients: (region) => ({
      cloudFormation: new CloudFormationClient({ region }),
      codeDeploy: new CodeDeployClient({ region }),
      lambda: new LambdaClient({ region }),
    }),
    homeRegion: sdkRegion,
    ...output,
  }),
);
