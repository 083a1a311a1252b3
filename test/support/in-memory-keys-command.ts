/**
 * The keys command run in-process with no admin API behind it (test/unit/keys/): for what it
 * decides before any request (help, usage errors, `check`); a request would fail to connect, so an
 * answer of these tests shows that none was made. Whatever reaches the admin API is tested on
 * DynamoDB Local (`keys-command.ts`), where the key service runs.
 */
import { LOCAL_REGION } from '../../infra/local/stack-files.ts';
import { keysCommandOn } from './keys-command-runner.ts';

export * from './keys-command-runner.ts';

/** Runs the command in-process, its local stack's admin API nowhere; stdout and stderr as lines. */
export const keysCommand = keysCommandOn({
  adminApiUrl: 'http://127.0.0.1:9/admin',
  credentialsFile: '.petstore/dynamodb.env',
  // Never used: nothing reaches an admin API here.
  credentials: { accessKeyId: 'PSLNOADMINAPI0000001', secretAccessKey: 'unused' },
  region: LOCAL_REGION,
});
