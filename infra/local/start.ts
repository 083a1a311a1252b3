/**
 * `npm start [-- --in-memory]`: the whole API at http://127.0.0.1:3000/v1 with no AWS account:
 * DynamoDB Local (or the DynamoDB that `DYNAMODB_ENDPOINT` names), the tables, one key per plan for a
 * fresh store, the local gateway, and the admin API at http://127.0.0.1:3001/admin
 * (docs/local-stack.md).
 */
import { mkdirSync } from 'node:fs';
import { createDocumentClient, type LocalCredentials } from '../../shared/dynamodb/clients.ts';
import { createContainer } from '../../shared/dynamodb/container.ts';
import type { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { PLAN_IDS } from '../../shared/plans.ts';
import { readSettings } from '../../shared/settings.ts';
import { type CommandStyle, newProgram, runMain, runProgram } from '../cli/program.ts';
import { type LocalAdminGateway, startAdminGateway } from './admin-gateway.ts';
import {
  assertJava,
  type DynamoDBLocal,
  type DynamoDBLocalOptions,
  startDynamoDBLocal,
} from './dynamodb-local.ts';
import { LocalStackError } from './errors.ts';
import { prepareExternalDynamoDB } from './external-dynamodb.ts';
// The gateway imports the function handlers at their first request, after the env is set below.
import { startGateway } from './gateway.ts';
import { MAX_CONCURRENCY_ENV } from './invocation.ts';
import { assertPortFree } from './ports.ts';
import { provideSecrets } from './secrets.ts';
import {
  credentialsEnv,
  dataDirectory,
  LOCAL_OPERATOR,
  LOCAL_REGION,
  loadOrCreateCredentials,
  removePidFile,
  stackDirectory,
  stopLeftBehind,
  writePidFile,
} from './stack-files.ts';
import { createTables } from './tables.ts';

// Before the first AWS SDK call: each invocation in its own InvokeStore context (invocation.ts).
process.env[MAX_CONCURRENCY_ENV] ??= '1000';

const HOST = '127.0.0.1';

/** What a signal stops: grows as the stack starts (before DynamoDB Local answers, exiting kills it). */
let stop = async () => {};

/** How `npm start` reports errors: the message alone, a usage error followed by the help. */
const START_STYLE: CommandStyle = { errorPrefix: '' };

/**
 * Starts the stack and returns once it serves; it runs until a signal stops it.
 *
 * @throws LocalStackError (or another Error) when it cannot start: an invalid setting, a port in
 *   use, both ports equal, no Java, a `DYNAMODB_ENDPOINT` that does not answer.
 */
async function start(inMemory: boolean): Promise<void> {
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const settings = readSettings();
  const { PORT: port, DYNAMODB_PORT: dynamoPort, DYNAMODB_ENDPOINT: endpoint } = settings;
  const ports: Ports = { port, adminPort: settings.ADMIN_PORT };
  const directory = stackDirectory();
  assertDistinctPorts(ports, endpoint === undefined ? dynamoPort : undefined);
  if (endpoint !== undefined) return startOnEndpoint(endpoint, ports, directory, inMemory);
  const dataDir = inMemory ? undefined : dataDirectory(directory);

  assertJava();
  const leftBehind = await stopLeftBehind(directory, dynamoPort);
  if (leftBehind) {
    console.error(
      `Stopped DynamoDB Local (pid ${leftBehind}) left behind by an earlier npm start.`,
    );
  }
  await assertPortsFree(ports);
  const credentials = useStackCredentials(directory);
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const dynamoOptions: DynamoDBLocalOptions = {
    port: dynamoPort,
    dbPath: dataDir,
    // Only the stack's own pages (its /docs) may call DynamoDB Local from a browser.
    corsOrigin: `http://${HOST}:${port}`,
    credentials,
  };
  let dynamo = await startDynamoDBLocal(dynamoOptions);
  writePidFile(directory, dynamoPort, dynamo.pid);
  stop = async () => {
    await dynamo.stop();
    removePidFile(directory, dynamoPort);
  };
  let gateway: Gateways;
  try {
    const client = createDocumentClient({ endpoint: dynamo.endpoint });
    Object.assign(process.env, await createTables(client), { DYNAMODB_ENDPOINT: dynamo.endpoint });
    client.destroy();
    provideSecrets(inMemory ? undefined : directory);
    gateway = await serve(
      ports,
      credentials,
      `DynamoDB Local data: ${dataDir ?? 'in memory'}`,
      ' and DynamoDB Local',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  stop = async () => {
    await gateway.close();
    await dynamo.stop();
    removePidFile(directory, dynamoPort);
  };

  const supervise = (running: DynamoDBLocal): void => {
    running.died.then(async (how) => {
      if (!dataDir) {
        console.error(
          `DynamoDB Local exited (${how}); the in-memory data is gone, so the stack stops.`,
        );
        await gateway.close();
        removePidFile(directory, dynamoPort);
        process.exit(1);
      }
      try {
        dynamo = await startDynamoDBLocal(dynamoOptions);
      } catch (error) {
        console.error(
          `DynamoDB Local exited (${how}) and could not be restarted: ${(error as Error).message}`,
        );
        await gateway.close();
        process.exit(1);
      }
      writePidFile(directory, dynamoPort, dynamo.pid);
      console.error(`DynamoDB Local exited (${how}); restarted it (pid ${dynamo.pid}).`);
      supervise(dynamo);
    });
  };
  supervise(dynamo);
}

/**
 * The stack on a DynamoDB brought by the user (`DYNAMODB_ENDPOINT`): no Java, no DynamoDB Local,
 * no pid file; the tables it lacks are created there, with the stack's own credentials.
 *
 * @throws LocalStackError with `--in-memory` (it keeps the data of a DynamoDB Local that npm start
 *   runs, and it runs none), a port in use, or an endpoint that does not answer.
 */
async function startOnEndpoint(
  endpoint: string,
  ports: Ports,
  directory: string,
  inMemory: boolean,
): Promise<void> {
  if (inMemory) {
    throw new LocalStackError(
      '--in-memory keeps the data of the DynamoDB Local that npm start runs, and with DYNAMODB_ENDPOINT set it runs none: drop one of them.',
    );
  }
  await assertPortsFree(ports);
  const credentials = useStackCredentials(directory);
  Object.assign(process.env, await prepareExternalDynamoDB(endpoint, credentials));
  provideSecrets(directory);
  const gateway = await serve(ports, credentials, `DynamoDB: ${endpoint} (DYNAMODB_ENDPOINT)`, '');
  stop = () => gateway.close();
}

/**
 * The stack's credentials (`.petstore/dynamodb.env`, created at the first start), put in the
 * environment where the functions' clients read them, as on Lambda; the shell's are not used.
 */
function useStackCredentials(directory: string): LocalCredentials {
  const credentials = loadOrCreateCredentials(directory);
  Object.assign(process.env, credentialsEnv(credentials));
  delete process.env.AWS_SESSION_TOKEN;
  return credentials;
}

/** The ports of the two gateways: the public API's (`PORT`) and the admin API's (`ADMIN_PORT`). */
interface Ports {
  readonly port: number;
  readonly adminPort: number;
}

/**
 * @param dynamoPort DynamoDB Local's port, when the stack starts one.
 * @throws LocalStackError when two of the stack's listeners are given the same port (0 picks a
 *   free one each).
 */
function assertDistinctPorts({ port, adminPort }: Ports, dynamoPort: number | undefined): void {
  const named = [
    ['PORT', port, 'the gateway'],
    ['ADMIN_PORT', adminPort, 'the admin API'],
    ['DYNAMODB_PORT', dynamoPort, 'DynamoDB Local'],
  ] as const;
  for (const [index, [name, value, service]] of named.entries()) {
    const same = named.slice(index + 1).find(([, other]) => other === value && value !== 0);
    if (same) {
      throw new LocalStackError(
        `${name} and ${same[0]} are both ${value}: ${service} and ${same[2]} need a port each; set one of them to another port.`,
      );
    }
  }
}

/** @throws PortInUseError naming the variable of a port in use. */
async function assertPortsFree({ port, adminPort }: Ports): Promise<void> {
  await assertPortFree(port, HOST, 'the gateway', 'PORT');
  await assertPortFree(adminPort, HOST, 'the admin API', 'ADMIN_PORT');
}

/** The public and the admin gateway, stopped together. */
interface Gateways {
  close(): Promise<void>;
}

/**
 * Issues keys for an empty store, starts the gateway and the admin API and prints the banner;
 * the tables and `DYNAMODB_ENDPOINT` are in the environment already.
 *
 * @param credentials The stack's own, the one principal the admin API admits.
 * @param storeLine The banner's line saying where the data is.
 * @param alsoStops What Ctrl-C stops besides the API, e.g. ` and DynamoDB Local`.
 */
async function serve(
  ports: Ports,
  credentials: LocalCredentials,
  storeLine: string,
  alsoStops: string,
): Promise<Gateways> {
  // No CloudWatch here: the functions' EMF metric lines would only clutter the console.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const issued = await issueKeysForEmptyStore();
  const gateway = await startGateway({ port: ports.port, host: HOST });
  let admin: LocalAdminGateway;
  try {
    admin = await startAdminGateway({
      port: ports.adminPort,
      host: HOST,
      principals: [{ ...credentials, ...LOCAL_OPERATOR }],
      region: LOCAL_REGION,
    });
  } catch (error) {
    await gateway.close();
    throw error;
  }
  printBanner(gateway.url, admin.url, storeLine, issued, alsoStops);
  return { close: async () => void (await Promise.all([gateway.close(), admin.close()])) };
}

type IssuedKey = Awaited<ReturnType<DynamoDBKeyStore['createKey']>>;

/** One key per plan when the keys table is empty (a fresh store), else none. */
async function issueKeysForEmptyStore(): Promise<IssuedKey[]> {
  const keys = createContainer().keys;
  if ((await keys.listKeys()).length > 0) return [];
  const issued: IssuedKey[] = [];
  for (const plan of PLAN_IDS) issued.push(await keys.createKey({ plan, owner: 'npm start' }));
  return issued;
}

function printBanner(
  url: string,
  adminUrl: string,
  storeLine: string,
  issued: IssuedKey[],
  alsoStops: string,
): void {
  const lines = [
    `Petstore API: ${url}`,
    `Admin API: ${adminUrl}`,
    `API reference: ${new URL('/docs', url)}`,
    storeLine,
  ];
  if (issued.length > 0) {
    lines.push('Keys issued for this new store (shown once; only their SHA-256 is kept):');
    for (const { record, token } of issued) {
      lines.push(`  ${record.plan.padEnd(8)} ${record.keyId}  ${token}`);
    }
  }
  lines.push(
    'Issue a key: npm run keys -- create --plan free',
    `Try: curl -H "Authorization: Bearer ${issued[0]?.token ?? '<API_KEY>'}" ${url}/pets`,
    `Ctrl-C stops the API${alsoStops}.`,
  );
  console.log(lines.join('\n'));
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

await runMain(import.meta.url, START_STYLE, (args, output) => {
  const program = newProgram('npm start --', output, START_STYLE)
    .description('Runs the whole API locally: DynamoDB Local, the tables, keys and the gateway.')
    .option('--in-memory', "Keep DynamoDB Local's data in memory (lost when it stops).")
    .addHelpText(
      'after',
      '\nEnvironment: PORT (default 3000), ADMIN_PORT (default 3001), DYNAMODB_PORT (default 8000),\nPETSTORE_DIR (default .petstore), DYNAMODB_ENDPOINT (a DynamoDB of your own: then no DynamoDB\nLocal is started).',
    )
    // npm keeps `npm start --in-memory` for itself and passes it on as npm_config_in_memory.
    .action((options: { inMemory?: boolean }) =>
      start(options.inMemory === true || process.env.npm_config_in_memory === 'true'),
    );
  return runProgram(program, args, output, START_STYLE);
});
