/**
 * vitest global setup of the `dynamodb` project: one DynamoDB Local (in memory) for the whole run,
 * on a free port, with credentials of its own as a local stack has. Its endpoint and credentials
 * are provided as `dynamoEndpoint` and `dynamoCredentials`; test/support/tables-per-file.ts
 * creates each test file's tables on it. Also the run's directory of synthesized CDK apps,
 * `cdkAssemblies` (test/support/synthesized-app.ts), removed after the run. Its JVM gets the
 * project's `JAVA_TOOL_OPTIONS` (vitest.config.ts), which vitest gives only to the workers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDBLocal } from '../../infra/local/dynamodb-local.ts';
import { PortInUseError } from '../../infra/local/local-stack-errors.ts';
import { freePort } from '../../infra/local/ports.ts';
import { generateCredentials } from '../../infra/local/stack-files.ts';
import type { LocalCredentials } from '../../shared/dynamodb/clients.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DynamoDB Local of the test run, e.g. `http://127.0.0.1:41234`. */
    dynamoEndpoint: string;
    /** The credentials that see the run's tables (DynamoDB Local keeps a database per key id). */
    dynamoCredentials: LocalCredentials;
    /** The run's synthesized apps, a folder per configuration. */
    cdkAssemblies: string;
  }
}

/** Another process may take the free port before java binds it: then try another one. */
const PORT_ATTEMPTS = 3;

export default async function setup({
  provide,
  config,
}: TestProject): Promise<() => Promise<void>> {
  process.env.JAVA_TOOL_OPTIONS = config.env.JAVA_TOOL_OPTIONS;
  const assemblies = await mkdtemp(join(tmpdir(), 'petstore-assemblies-'));
  provide('cdkAssemblies', assemblies);
  for (let attempt = 1; ; attempt++) {
    try {
      const credentials = generateCredentials();
      const dynamo = await startDynamoDBLocal({ port: await freePort(), credentials });
      provide('dynamoEndpoint', dynamo.endpoint);
      provide('dynamoCredentials', credentials);
      return async () => {
        await dynamo.stop();
        await rm(assemblies, { recursive: true, force: true });
      };
    } catch (error) {
      if (!(error instanceof PortInUseError) || attempt === PORT_ATTEMPTS) {
        await rm(assemblies, { recursive: true, force: true });
        throw error;
      }
    }
  }
}
