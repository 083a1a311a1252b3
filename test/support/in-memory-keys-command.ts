/**
 * The keys command run in-process on an in-memory key store (test/unit/keys/): the local stack
 * and every "deployed stage" are that one store. Subcommands that read the counters table (list,
 * usage, unban) are tested on DynamoDB Local (`keys-command.ts`).
 */
import type { KeysCommandDependencies } from '../../infra/cli/keys/program.ts';
import { InMemoryKeyStore } from './in-memory-key-store.ts';
import { keyFixtures, keysCommandOn, useDeployedStageOf } from './keys-command-runner.ts';

export * from './keys-command-runner.ts';

/** The test file's keys, to set up keys and check what the command stored. */
export const keys = new InMemoryKeyStore();

/** The keys table's name, as the local stack and a deployed stage's outputs give it. */
export const tableName = 'petstore-keys';
export const { enterpriseKey, activeKeyIds } = keyFixtures(keys);

/** The local stack as the command sees it: names only, every table is {@link keys}. */
const localStack: KeysCommandDependencies['local'] = {
  endpoint: 'http://127.0.0.1:8000',
  keysTableName: tableName,
  countersTableName: 'petstore-counters',
  credentialsFile: '.petstore/dynamodb.env',
  hasCredentials: true,
};

/** No counters table in memory: a subcommand that reads it fails, naming where it is tested. */
function noCounters(): never {
  throw new Error('the counters table is DynamoDB-backed: test this under test/dynamodb/keys/');
}

/** Runs the command in-process on {@link keys}; stdout and stderr as lines. */
export const keysCommand = keysCommandOn({
  local: localStack,
  openKeyStore: () => keys,
  openRateLimitBans: noCounters,
  openKeyUsage: noCounters,
});

/** Before each test of the calling `describe`: a deployed stage whose tables are {@link keys}. */
export const useDeployedStage = () => useDeployedStageOf(localStack);
