/**
 * A DynamoDB brought by the user instead of the DynamoDB Local that `npm start` runs: the setting
 * `DYNAMODB_ENDPOINT` names it (DynamoDB Local run elsewhere, or a proxy in front of it), for
 * `npm start` and `npm run keys` alike (docs/local-stack.md, "Bring your own DynamoDB").
 */
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient, type LocalCredentials } from '../../shared/dynamodb/clients.ts';
import type { TableDefinition } from '../../shared/dynamodb/tables.ts';
import { createTables } from './create-tables.ts';
import { LocalStackError } from './local-stack-errors.ts';
import { LOCAL_REGION } from './stack-files.ts';

/**
 * Checks that the endpoint answers ListTables with the stack's credentials, then creates the
 * tables it lacks (existing tables and their data are kept).
 *
 * @param endpoint The URL of `DYNAMODB_ENDPOINT`, e.g. `http://127.0.0.1:8001`.
 * @param credentials The stack's credentials (`.petstore/dynamodb.env`): DynamoDB Local keeps one
 *   database per access key id and region, so these pick the stack's tables there.
 * @param nameOf The name of each table. @default - the definition's `localName`
 * @returns The tables' environment, as `createTables` gives it.
 * @throws LocalStackError, one line, when the endpoint does not answer (the SDK's bounds and
 *   retries of `DYNAMODB_CALL_BOUNDS`, about 10 s at most).
 */
export async function prepareExternalDynamoDB(
  endpoint: string,
  credentials: LocalCredentials,
  nameOf?: (table: TableDefinition) => string,
): Promise<Record<string, string>> {
  const client = createDocumentClient({
    endpoint,
    local: { ...credentials, region: LOCAL_REGION },
  });
  try {
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
    } catch (error) {
      throw new LocalStackError(
        `DynamoDB at ${endpoint} (DYNAMODB_ENDPOINT) does not answer: ${reason(error)}; start it, or unset DYNAMODB_ENDPOINT so that npm start runs DynamoDB Local.`,
        { cause: error },
      );
    }
    return await createTables(client, nameOf);
  } finally {
    client.destroy();
  }
}

/** Why a call failed, in a few words: a connection error has an empty message but a code. */
function reason(error: unknown): string {
  const { message, code, name } = error as { message?: string; code?: string; name?: string };
  return message || code || name || String(error);
}
