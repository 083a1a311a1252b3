/**
 * What the benchmarks of the functions share: DynamoDB Local on a free port with the service's
 * tables, the environment the functions read, and keys issued through the key service (one whose
 * limits no bench reaches).
 */

import { createKeyService } from '../functions/admin/composition-root.ts';
import { createTables } from '../infra/local/create-tables.ts';
import { startDynamoDBLocal } from '../infra/local/dynamodb-local.ts';
import { newSecretValue } from '../infra/local/local-secrets.ts';
import { freePort } from '../infra/local/ports.ts';
import { credentialsEnv, generateCredentials } from '../infra/local/stack-files.ts';
import { systemAuditContext } from '../shared/audit/entry.ts';
import { createDocumentClient } from '../shared/dynamodb/clients.ts';
import { limitsOfKey } from '../shared/keys/key-records.ts';
import type { KeyService } from '../shared/keys/key-service.ts';
import { MAX_PER_DAY, MAX_PER_MINUTE } from '../shared/plans.ts';

/**
 * Starts DynamoDB Local, creates the tables, sets the functions' environment (table names,
 * endpoint, a cursor key, silent logs), runs `bench` and stops DynamoDB Local, even on failure.
 *
 * @param bench Receives DynamoDB Local's endpoint, e.g. `http://127.0.0.1:41234`, and the process
 *   id of its `java` (to pin it to a CPU).
 */
export async function withLocalStack(
  bench: (endpoint: string, javaPid: number) => Promise<void>,
): Promise<void> {
  // The bench's own DynamoDB Local credentials, read from the environment by every client.
  Object.assign(process.env, credentialsEnv(generateCredentials()));
  const dynamo = await startDynamoDBLocal({ port: await freePort() });
  try {
    const client = createDocumentClient({ endpoint: dynamo.endpoint });
    Object.assign(process.env, await createTables(client), {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      CURSOR_KEY: newSecretValue(),
    });
    client.destroy();
    await bench(dynamo.endpoint, dynamo.pid);
  } finally {
    await dynamo.stop();
  }
}

/**
 * Issues an Enterprise key with the highest limits: benches measure latency, not the limits (the
 * rate limiter still counts every request, as for any key).
 *
 * @returns Its bearer token and the authorizer context API Gateway would pass to the functions.
 */
export async function unlimitedKey(): Promise<{
  token: string;
  authorizer: Record<string, string | number>;
}> {
  const { token, key } = await benchKey({
    plan: 'enterprise',
    owner: 'bench',
    limits: { perMinute: MAX_PER_MINUTE, perDay: MAX_PER_DAY },
  });
  return { token, authorizer: { keyId: key.keyId, plan: key.plan, ...limitsOfKey(key) } };
}

/**
 * Issues a key as the benches do: through the key service on the bench's tables, recorded with
 * the actor `bench`.
 */
export function benchKey(input: Parameters<KeyService['createKey']>[0]) {
  return createKeyService().createKey(input, systemAuditContext('bench'));
}
