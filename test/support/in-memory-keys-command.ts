/**
 * The keys command run in-process with no admin API behind it (test/unit/keys/): for what it
 * decides before any request (help, usage errors, `check`), with an in-memory key store that a
 * test reads to see that nothing changed. Whatever reaches the admin API is tested on DynamoDB
 * Local (`keys-command.ts`), where the admin operations run.
 */
import { LOCAL_REGION } from '../../infra/local/stack-files.ts';
import { InMemoryKeyStore } from './in-memory-key-store.ts';
import { keyFixtures, keysCommandOn } from './keys-command-runner.ts';

export * from './keys-command-runner.ts';

/** A key store the command never reaches: a test checks that it is unchanged. */
export const keys = new InMemoryKeyStore();

export const { enterpriseKey, activeKeyIds } = keyFixtures(keys);

/** Runs the command in-process, its local stack's admin API nowhere; stdout and stderr as lines. */
export const keysCommand = keysCommandOn({
  adminApiUrl: 'http://127.0.0.1:9/admin',
  credentialsFile: '.petstore/dynamodb.env',
  // Never used: nothing reaches an admin API here.
  credentials: { accessKeyId: 'PSLNOADMINAPI0000001', secretAccessKey: 'unused' },
  region: LOCAL_REGION,
});
