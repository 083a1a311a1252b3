/**
 * `npm start [-- --in-memory]`: the whole API at http://127.0.0.1:3000/v1 with no AWS account
 * (issue 2, section 5).
 *
 * Starts DynamoDB Local on 127.0.0.1:8000 with its data under `.petstore/dynamodb` (or in memory),
 * creates the tables from shared/tables.ts, keeps listPets's cursor key in `.petstore/cursor-key`
 * (a fresh one per run in memory; `CURSOR_KEY` overrides it), issues one key per plan when the
 * store has none, and starts the local gateway. Ctrl-C or SIGTERM stops both and exits 0. `PORT` and `DYNAMODB_PORT`
 * pick other ports. A missing Java or a port in use is one line on stderr and exit code 1.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createDocumentClient } from '../../shared/clients.ts';
import { type DynamoDbKeyStore, keyStoreFromEnv } from '../../shared/keys/store.ts';
import { CURSOR_KEY_ENV } from '../../shared/pets/cursor.ts';
import { PLAN_IDS } from '../../shared/plans.ts';
import { localCursorKey, newCursorKey } from './cursor-key.ts';
import { assertJava, DYNAMODB_PORT_ENV, startDynamoDbLocal } from './dynamodb-local.ts';
import { LocalStackError } from './errors.ts';
// The gateway imports the function handlers at their first request, after the env is set below.
import { PORT_ENV, startGateway } from './gateway.ts';
import { assertPortFree } from './ports.ts';
import { createTables } from './tables.ts';

const STATE_DIRECTORY = resolve(import.meta.dirname, '../../.petstore');
const DATA_DIRECTORY = resolve(STATE_DIRECTORY, 'dynamodb');

/** What a signal stops: grows as the stack starts (before DynamoDB Local answers, exiting kills it). */
let stop = async () => {};

async function main(): Promise<void> {
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const inMemory = parseOptions().inMemory;
  const port = portFromEnv(PORT_ENV, 3000);
  const dynamoPort = portFromEnv(DYNAMODB_PORT_ENV, 8000);

  assertJava();
  await assertPortFree(port, '127.0.0.1', 'the gateway', PORT_ENV);
  if (!inMemory) mkdirSync(DATA_DIRECTORY, { recursive: true });
  const dynamo = await startDynamoDbLocal({
    port: dynamoPort,
    dbPath: inMemory ? undefined : DATA_DIRECTORY,
  });
  stop = dynamo.stop;
  try {
    const client = createDocumentClient(dynamo.endpoint);
    Object.assign(process.env, await createTables(client), { DYNAMODB_ENDPOINT: dynamo.endpoint });
    process.env.AWS_REGION ??= 'us-east-1';
    // No CloudWatch here: the functions' EMF metric lines would only clutter the console.
    process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
    process.env[CURSOR_KEY_ENV] ??= inMemory ? newCursorKey() : localCursorKey(STATE_DIRECTORY);
    client.destroy();
    const issued = await issueKeysForEmptyStore();
    const gateway = await startGateway({ port });
    stop = async () => {
      await gateway.close();
      await dynamo.stop();
    };
    printBanner(gateway.url, inMemory ? 'in memory' : DATA_DIRECTORY, issued);
  } catch (error) {
    await dynamo.stop();
    throw error;
  }
}

type IssuedKey = Awaited<ReturnType<DynamoDbKeyStore['createKey']>>;

/** One key per plan when the keys table is empty (a fresh store), else none. */
async function issueKeysForEmptyStore(): Promise<IssuedKey[]> {
  const keys = keyStoreFromEnv();
  if ((await keys.listKeys()).length > 0) return [];
  const issued: IssuedKey[] = [];
  for (const plan of PLAN_IDS) issued.push(await keys.createKey({ plan, owner: 'npm start' }));
  return issued;
}

function printBanner(url: string, data: string, issued: IssuedKey[]): void {
  const lines = [`Petstore API: ${url}`, `DynamoDB Local data: ${data}`];
  if (issued.length > 0) {
    lines.push('Keys issued for this new store (shown once; only their SHA-256 is kept):');
    for (const { record, token } of issued) {
      lines.push(`  ${record.plan.padEnd(8)} ${record.keyId}  ${token}`);
    }
  }
  lines.push(
    'Issue a key: npm run keys -- create --plan free',
    `Try: curl -H "Authorization: Bearer ${issued[0]?.token ?? '<API_KEY>'}" ${url}/pets`,
    'Ctrl-C stops the API and DynamoDB Local.',
  );
  console.log(lines.join('\n'));
}

/** A port number from the environment, or the default. */
function portFromEnv(name: string, fallback: number): number {
  const value = process.env[name] ?? String(fallback);
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new LocalStackError(`${name} must be a port number from 0 to 65535, not "${value}".`);
  }
  return port;
}

/** Ctrl-C and SIGTERM: stop what runs, then exit 0. */
function onSignal(): void {
  stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

function parseOptions(): { inMemory: boolean } {
  try {
    const { values } = parseArgs({ options: { 'in-memory': { type: 'boolean', default: false } } });
    return { inMemory: values['in-memory'] };
  } catch (error) {
    throw new LocalStackError(`${(error as Error).message}. Usage: npm start [-- --in-memory]`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof LocalStackError ? error.message : error);
  process.exit(1);
});
