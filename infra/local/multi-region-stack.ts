/**
 * The two-region local stack (`npm start -- --regions us-east-1,eu-west-1`): per region a DynamoDB
 * Local with the tables and a gateway in a child process of its own (region-gateway.ts), and in
 * this process the model of global tables that replicates between them (replication.ts).
 *
 * Why a process per region: the local gateway runs the functions in its own process, and a
 * function reads its settings (`AWS_REGION`, `PETSTORE_REGIONS`, `DYNAMODB_ENDPOINT`) once, when
 * its module is first imported; two regions in one process would share one import of each
 * function. Region `i` (from 0) listens on `PORT + i`, its DynamoDB Local on `DYNAMODB_PORT + i`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDocumentClient, type LocalCredentials } from '../../shared/dynamodb/clients.ts';
import { REPOSITORY_ROOT } from '../repository.ts';
import { createTables } from './create-tables.ts';
import { type DynamoDBLocal, startDynamoDBLocal } from './dynamodb-local.ts';
import { MAX_CONCURRENCY_ENV } from './invocation.ts';
import { LocalStackError } from './local-stack-errors.ts';
import { assertPortFree } from './ports.ts';
import { type Replication, startReplication } from './replication.ts';
import { credentialsEnv, removePidFile, stopLeftBehind, writePidFile } from './stack-files.ts';

const HOST = '127.0.0.1';

/** A region name as AWS spells them: `us-east-1`, `ap-southeast-2`, `us-gov-west-1`. */
const REGION_NAME = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/;

/**
 * The regions of `--regions`: two or more distinct region names, comma-separated, the first the
 * home region.
 *
 * @throws LocalStackError saying what is wrong, with an example.
 */
export function parseRegions(list: string): string[] {
  const names = list.split(',').map((name) => name.trim());
  const invalid = names.find((name) => !REGION_NAME.test(name));
  if (invalid !== undefined) {
    throw new LocalStackError(
      `--regions: "${invalid}" is not a region name; give two or more, comma-separated, e.g. --regions us-east-1,eu-west-1`,
    );
  }
  if (names.length < 2) {
    throw new LocalStackError(
      `--regions needs two regions or more (the first is the home region), e.g. --regions ${names[0]},eu-west-1; without --regions the stack has one.`,
    );
  }
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated) throw new LocalStackError(`--regions names ${repeated} twice.`);
  return names;
}

/** Options of {@link startRegions}. */
export interface RegionsOptions {
  /** Region names, the first the home region (see {@link parseRegions}). */
  readonly names: readonly string[];
  /** The first region's gateway port; the next region's is the next port. */
  readonly port: number;
  /** The first region's DynamoDB Local port; likewise. */
  readonly dynamoPort: number;
  /** The stack's directory: pid files, and the data under `regions/<name>` unless in memory. */
  readonly directory: string;
  readonly inMemory: boolean;
  /** The stack's DynamoDB Local credentials (`dynamodb.env`). */
  readonly credentials: LocalCredentials;
  /** The replication lag, milliseconds (`REPLICATION_LAG_MS`). */
  readonly lagMs: number;
  /**
   * The environment of every region's functions besides their region's own: the secrets.
   * @default {}
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Called when a region's DynamoDB Local exits by itself (`how`: `signal SIGKILL`, `code 1`);
   * {@link RunningRegions.restartDynamoDB} brings it back.
   * @default - nothing: the region stays without its DynamoDB
   */
  readonly onDynamoDBExit?: (name: string, how: string) => void;
  /**
   * Called when a region's gateway process exits by itself.
   * @default - nothing
   */
  readonly onGatewayExit?: (name: string, how: string) => void;
}

/** One running region. */
export interface RunningRegion {
  readonly name: string;
  /** Its API's base URL, e.g. `http://127.0.0.1:3000/v1`. */
  readonly url: string;
  /** Its DynamoDB Local's endpoint, e.g. `http://127.0.0.1:8000`. */
  readonly endpoint: string;
  /** Pid of its DynamoDB Local's `java` process (the latest, after a restart). */
  dynamoPid: number;
  /** Pid of its gateway's process. */
  readonly gatewayPid: number;
}

/** The running regions and their replication. */
export interface RunningRegions {
  /** In the order given, the home region first. */
  readonly regions: readonly RunningRegion[];
  readonly replication: Replication;
  /** The environment of the home region's DynamoDB Local: tables, endpoint, credentials. */
  readonly homeEnv: Readonly<Record<string, string>>;
  /**
   * Starts a region's DynamoDB Local again (after it exited), on its port and data.
   * @throws LocalStackError as startDynamoDBLocal.
   */
  restartDynamoDB(name: string): Promise<void>;
  /** Stops the gateways, the model and the DynamoDB Locals. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts every region: checks the ports, starts the DynamoDB Locals and creates the tables in
 * each, starts the replication model, then the gateways. The caller issues keys in the home region
 * (`homeEnv`); the model carries them to the others.
 *
 * @throws LocalStackError for ports that overlap or are taken, or a DynamoDB Local that does not
 *   start; what started is stopped first.
 */
export async function startRegions(options: RegionsOptions): Promise<RunningRegions> {
  const { names, port, dynamoPort, directory, credentials } = options;
  const gatewayPorts = names.map((_, index) => port + index);
  const dynamoPorts = names.map((_, index) => dynamoPort + index);
  assertPortsUsable(gatewayPorts, dynamoPorts);
  for (const dynamoPortOfRegion of dynamoPorts) {
    const leftBehind = await stopLeftBehind(directory, dynamoPortOfRegion);
    if (leftBehind) {
      console.error(
        `Stopped DynamoDB Local (pid ${leftBehind}) left behind by an earlier npm start.`,
      );
    }
  }
  for (const gatewayPort of gatewayPorts) {
    await assertPortFree(gatewayPort, HOST, 'the gateway', 'PORT');
  }

  const dynamos: (DynamoDBLocal | undefined)[] = names.map(() => undefined);
  const gateways: ChildProcess[] = [];
  let replication: Replication | undefined;
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await Promise.all(gateways.map(stopGateway));
    await replication?.stop();
    for (const [index, dynamo] of dynamos.entries()) {
      await dynamo?.stop();
      removePidFile(directory, dynamoPorts[index] ?? 0);
    }
  };

  const startDynamo = async (index: number): Promise<DynamoDBLocal> => {
    const name = names[index] ?? '';
    const dataDir = options.inMemory ? undefined : join(directory, 'regions', name);
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    const dynamo = await startDynamoDBLocal({
      port: dynamoPorts[index] ?? 0,
      dbPath: dataDir,
      corsOrigin: `http://${HOST}:${gatewayPorts[index]}`,
      credentials,
    });
    dynamos[index] = dynamo;
    writePidFile(directory, dynamoPorts[index] ?? 0, dynamo.pid);
    dynamo.died.then((how) => {
      if (!stopping) options.onDynamoDBExit?.(name, how);
    });
    return dynamo;
  };

  try {
    const started: DynamoDBLocal[] = [];
    for (const index of names.keys()) started.push(await startDynamo(index));
    let tableEnv: Record<string, string> = {};
    for (const dynamo of started) {
      const client = createDocumentClient({ endpoint: dynamo.endpoint, local: credentials });
      tableEnv = await createTables(client);
      client.destroy();
    }
    replication = await startReplication({
      regions: names.map((name, index) => ({ name, endpoint: started[index]?.endpoint ?? '' })),
      tables: Object.values(tableEnv),
      credentials,
      lagMs: options.lagMs,
    });
    const regions: RunningRegion[] = [];
    for (const [index, name] of names.entries()) {
      const endpoint = started[index]?.endpoint ?? '';
      const { child, url } = await startGateway(name, replication, {
        ...process.env,
        ...options.env,
        ...credentialsEnv(credentials),
        ...tableEnv,
        POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
        [MAX_CONCURRENCY_ENV]: '1000',
        PORT: String(gatewayPorts[index]),
        DYNAMODB_ENDPOINT: endpoint,
        // Keys change in the home region only (the leaked-key endpoint of every region).
        ...(index > 0 && { HOME_DYNAMODB_ENDPOINT: started[0]?.endpoint }),
        AWS_REGION: name,
        AWS_DEFAULT_REGION: name,
        PETSTORE_REGIONS: names.join(','),
      });
      gateways.push(child);
      child.once('exit', (code, signal) => {
        if (!stopping) options.onGatewayExit?.(name, signal ? `signal ${signal}` : `code ${code}`);
      });
      regions.push({
        name,
        url,
        endpoint,
        dynamoPid: started[index]?.pid ?? 0,
        gatewayPid: child.pid ?? 0,
      });
    }
    return {
      regions,
      replication,
      homeEnv: {
        ...credentialsEnv(credentials),
        ...tableEnv,
        DYNAMODB_ENDPOINT: regions[0]?.endpoint ?? '',
      },
      restartDynamoDB: async (name) => {
        const index = names.indexOf(name);
        const region = regions[index];
        if (!region) throw new LocalStackError(`No region ${name} in this stack.`);
        region.dynamoPid = (await startDynamo(index)).pid;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Checks that every gateway and DynamoDB Local port is a port and none is used twice.
 * @throws LocalStackError naming `PORT` and `DYNAMODB_PORT`.
 */
function assertPortsUsable(gatewayPorts: readonly number[], dynamoPorts: readonly number[]): void {
  const all = [...gatewayPorts, ...dynamoPorts];
  const count = gatewayPorts.length;
  if (new Set(all).size < all.length || all.some((p) => p <= count || p > 65_535)) {
    throw new LocalStackError(
      `With ${count} regions the gateways listen on PORT to PORT+${count - 1} and DynamoDB Local on DYNAMODB_PORT to DYNAMODB_PORT+${count - 1} (${gatewayPorts.join(', ')} and ${dynamoPorts.join(', ')}): these ranges must not overlap nor start at 0; set PORT or DYNAMODB_PORT to another port.`,
    );
  }
}

/**
 * Starts a region's gateway process and waits until it listens; answers its requests for the
 * model's figures.
 *
 * @throws LocalStackError with the gateway's own message (e.g. its port in use) when it exits
 *   before it listens.
 */
async function startGateway(
  name: string,
  replication: Replication,
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(new URL('./region-gateway.ts', import.meta.url), [], {
    cwd: REPOSITORY_ROOT,
    env,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.on('message', (message: { figures?: number }) => {
    if (message.figures !== undefined && child.connected) {
      child.send({ id: message.figures, figures: replication.figures() });
    }
  });
  const exited = once(child, 'exit');
  const answer: { ready?: string; failed?: string } = await Promise.race([
    new Promise<{ ready?: string; failed?: string }>((resolve) =>
      child.on('message', (message: { ready?: string; failed?: string }) => {
        if (message.ready || message.failed) resolve(message);
      }),
    ),
    exited.then(() => ({ failed: `exited at start (code ${child.exitCode})` })),
  ]);
  if (!answer.ready) {
    await stopGateway(child);
    throw new LocalStackError(`Region ${name}: ${answer.failed}`);
  }
  return { child, url: answer.ready };
}

/** Stops a gateway process (SIGTERM) and waits for it to exit. */
async function stopGateway(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
