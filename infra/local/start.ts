/**
 * `npm start [-- --in-memory] [--regions us-east-1,eu-west-1]`: the whole API at
 * http://127.0.0.1:3000/v1 with no AWS account: DynamoDB Local (or the DynamoDB that
 * `DYNAMODB_ENDPOINT` names), the tables, one key per plan for a fresh store, the local gateway,
 * the admin API at http://127.0.0.1:3100/admin and the developer portal at http://127.0.0.1:3200/
 * with its sign-in and API (portal-site.ts); with `--regions`, a gateway and a DynamoDB Local per
 * region and a model of global tables between them, the admin API in the home region
 * (multi-region-stack.ts, docs/local-stack.md).
 */
import { mkdirSync } from 'node:fs';
import { createDocumentClient, type LocalCredentials } from '../../shared/dynamodb/clients.ts';
import { readSettings } from '../../shared/settings.ts';
import { type CommandStyle, newProgram, runMain, runProgram } from '../cli/common/program.ts';
import { SECRET_SCANNING_PATH } from '../secret-scanning-route.ts';
import { type LocalAdminGateway, startLocalAdminApi } from './admin-gateway.ts';
import { issueKeysForEmptyStore, printBanner } from './banner.ts';
import { createTables } from './create-tables.ts';
import {
  assertJava,
  type DynamoDBLocal,
  type DynamoDBLocalOptions,
  startDynamoDBLocal,
} from './dynamodb-local.ts';
import { prepareExternalDynamoDB } from './external-dynamodb.ts';
// The gateway imports the function handlers at their first request, after the env is set below.
import { startGateway } from './gateway.ts';
import { MAX_CONCURRENCY_ENV } from './invocation.ts';
import { provideSecrets } from './local-secrets.ts';
import { LocalStackError } from './local-stack-errors.ts';
import { parseRegions, type RunningRegions, startRegions } from './multi-region-stack.ts';
import { type LocalPortal, startLocalPortal } from './portal-site.ts';
import { assertDistinctPorts, assertPortsFree, type Ports } from './ports.ts';
import {
  dataDirectory,
  removePidFile,
  stackDirectory,
  stopLeftBehind,
  useStackCredentials,
  writePidFile,
} from './stack-files.ts';

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
  const ports: Ports = { port, adminPort: settings.ADMIN_PORT, portalPort: settings.PORTAL_PORT };
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
  await assertPortsFree(ports, HOST);
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
      inMemory ? undefined : directory,
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
 * The stack of several regions (multi-region-stack.ts): one line per region, keys issued in the
 * home region for a fresh store. A region's DynamoDB Local that exits is restarted on its data; in
 * memory, or when a gateway exits, the stack stops, as the one-region stack does.
 *
 * @throws LocalStackError (or another Error) as {@link start}, and with `DYNAMODB_ENDPOINT` set.
 */
async function startRegionsStack(names: readonly string[], inMemory: boolean): Promise<void> {
  const settings = readSettings();
  if (settings.DYNAMODB_ENDPOINT !== undefined) {
    throw new LocalStackError(
      '--regions runs a DynamoDB Local per region, and DYNAMODB_ENDPOINT names one DynamoDB: drop one of them.',
    );
  }
  assertJava();
  const directory = stackDirectory();
  const credentials = useStackCredentials(directory);
  const secrets: Record<string, string> = {};
  provideSecrets(inMemory ? undefined : directory, secrets);
  const stopStack = (message: string) => {
    console.error(message);
    stop().then(() => process.exit(1));
  };
  let running: RunningRegions | undefined;
  running = await startRegions({
    names,
    port: settings.PORT,
    dynamoPort: settings.DYNAMODB_PORT,
    directory,
    inMemory,
    credentials,
    lagMs: settings.REPLICATION_LAG_MS,
    env: secrets,
    onDynamoDBExit: (name, how) => {
      if (inMemory) {
        return stopStack(
          `Region ${name}: DynamoDB Local exited (${how}); the in-memory data is gone, so the stack stops.`,
        );
      }
      running?.restartDynamoDB(name).then(
        () => console.error(`Region ${name}: DynamoDB Local exited (${how}); restarted it.`),
        (error: unknown) =>
          stopStack(
            `Region ${name}: DynamoDB Local exited (${how}) and could not be restarted: ${(error as Error).message}`,
          ),
      );
    },
    onGatewayExit: (name, how) =>
      stopStack(`Region ${name}: the gateway exited (${how}), so the stack stops.`),
  });
  stop = running.stop;
  Object.assign(process.env, running.homeEnv);
  const issued = await issueKeysForEmptyStore();
  // The admin API runs in the home region, where keys have their one writer (docs/architecture.md).
  const admin = await startLocalAdminApi(settings.ADMIN_PORT, HOST, credentials);
  const stopRegions = running.stop;
  stop = async () => void (await Promise.all([admin.close(), stopRegions()]));
  const [home] = running.regions;
  const lines = [
    ...running.regions.map((region) => `Region ${region.name}: ${region.url}`),
    `Admin API: ${admin.url}`,
    `Secret scanning: ${running.regions.map(({ url }) => `${url}${SECRET_SCANNING_PATH}`).join(', ')}`,
    `Home region: ${home?.name} (the admin API and npm run keys administer keys there)`,
    `DynamoDB Local data: ${inMemory ? 'in memory' : `${directory}/regions/<region>`}`,
    `Replication: every table, last writer wins, lag ${settings.REPLICATION_LAG_MS} ms (REPLICATION_LAG_MS); figures at ${new URL('/__local/replication', home?.url)}`,
  ];
  printBanner(home?.url ?? '', lines, issued, ' and the DynamoDB Locals');
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
  await assertPortsFree(ports, HOST);
  const credentials = useStackCredentials(directory);
  Object.assign(process.env, await prepareExternalDynamoDB(endpoint, credentials));
  provideSecrets(directory);
  const gateway = await serve(
    ports,
    credentials,
    `DynamoDB: ${endpoint} (DYNAMODB_ENDPOINT)`,
    '',
    directory,
  );
  stop = () => gateway.close();
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
 * @param directory Where the portal's accounts are kept. @default - in memory
 */
async function serve(
  ports: Ports,
  credentials: LocalCredentials,
  storeLine: string,
  alsoStops: string,
  directory?: string,
): Promise<Gateways> {
  // No CloudWatch here: the functions' EMF metric lines would only clutter the console.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const issued = await issueKeysForEmptyStore();
  const gateway = await startGateway({ port: ports.port, host: HOST });
  let admin: LocalAdminGateway;
  let portal: LocalPortal;
  const apiReference = new URL('/docs', gateway.url).href;
  try {
    admin = await startLocalAdminApi(ports.adminPort, HOST, credentials);
    portal = await startLocalPortal({
      host: HOST,
      port: ports.portalPort,
      apiReferenceUrl: apiReference,
      directory,
    }).catch(async (error: unknown) => {
      await admin.close();
      throw error;
    });
  } catch (error) {
    await gateway.close();
    throw error;
  }
  printBanner(
    gateway.url,
    [
      `Petstore API: ${gateway.url}`,
      `Admin API: ${admin.url}`,
      `Secret scanning: ${gateway.url}${SECRET_SCANNING_PATH}`,
      `API reference: ${apiReference}`,
      `Portal: ${portal.url}`,
      `Portal API: ${portal.backEnd.apiUrl}`,
      `Portal sign-in (OpenID provider): ${portal.backEnd.issuer}`,
      storeLine,
    ],
    issued,
    alsoStops,
  );
  return {
    close: async () => void (await Promise.all([gateway.close(), admin.close(), portal.close()])),
  };
}

/** Whether a signal is being handled: the stack stops once. */
let stopping = false;

/** Ctrl-C and SIGTERM: stop what runs, then exit 0; a repeated signal changes nothing. */
function onSignal(): void {
  if (stopping) return;
  stopping = true;
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
    .option(
      '--regions <names>',
      'Run one gateway and DynamoDB Local per region, replicated as global tables, e.g. us-east-1,eu-west-1 (the first is the home region).',
    )
    .addHelpText(
      'after',
      '\nEnvironment: PORT (default 3000), ADMIN_PORT (default 3100), PORTAL_PORT (default 3200: the\ndeveloper portal), PORTAL_AUTH_PORT (default 3300: its sign-in), PORTAL_API_PORT (default\n3400: the portal API), DYNAMODB_PORT (default 8000), PETSTORE_DIR (default .petstore),\nDYNAMODB_ENDPOINT (a DynamoDB of your own: then no DynamoDB Local is started),\nREPLICATION_LAG_MS (default 500: with --regions, the lag before a write reaches the other\nregions).',
    )
    // npm keeps `npm start --in-memory` for itself and passes it on as npm_config_in_memory.
    .action((options: { inMemory?: boolean; regions?: string }) => {
      const inMemory = options.inMemory === true || process.env.npm_config_in_memory === 'true';
      if (options.regions === undefined) return start(inMemory);
      const names = parseRegions(options.regions);
      // Every signal, not once: tsx sends a second SIGTERM when a busy process has not said
      // within 30 ms that it got the first, and that one must not kill it mid-stop.
      process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
      return startRegionsStack(names, inMemory);
    });
  return runProgram(program, args, output, START_STYLE);
});
