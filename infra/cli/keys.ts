/**
 * `npm run keys -- <command> …`: the argv entry of the keys command (keys/keys-program.ts,
 * `--help`): a client of the local stack's admin API on `ADMIN_PORT`, signed with
 * `.petstore/dynamodb.env`, or of a stage's, signed with the default AWS credential chain.
 */
import { join } from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { ADMIN_API_STAGE_NAME } from '../../shared/admin-operations.ts';
import { readSettings } from '../../shared/settings.ts';
import {
  CREDENTIALS_FILE,
  LOCAL_REGION,
  readCredentials,
  stackDirectory,
} from '../local/stack-files.ts';
import { runMain } from './common/program.ts';
import { KEYS_STYLE, runKeysCommand } from './keys/keys-program.ts';

await runMain(import.meta.url, KEYS_STYLE, (args, output) => {
  const settings = readSettings();
  return runKeysCommand(args, {
    local: {
      adminApiUrl: `http://127.0.0.1:${settings.ADMIN_PORT}/${ADMIN_API_STAGE_NAME}`,
      credentialsFile: join(stackDirectory(), CREDENTIALS_FILE),
      credentials: readCredentials(stackDirectory()),
      region: LOCAL_REGION,
    },
    stageCredentials: defaultProvider(),
    cloudFormation: new CloudFormationClient({}),
    ...output,
  });
});
