/**
 * `npm start` as a user runs it, in a child process (tsx, as the npm script does), with its own
 * DynamoDB Local on free ports and its own stack directory (`PETSTORE_DIR`), for the tests of the
 * local stack as a process.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { assertPortFree } from '../../infra/local/ports.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';

const TSX = resolve(REPOSITORY_ROOT, 'node_modules/.bin/tsx');

/** Bounds of every wait: DynamoDB Local's JVM may take several seconds on a busy machine. */
export const START_TIMEOUT_MS = 60_000;
export const EXIT_TIMEOUT_MS = 20_000;

/** A running (or exited) `npm start`. */
export interface Started {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  readonly dynamoPort: number;
}

/** Ports and environment of one stack. */
export interface StackOptions {
  readonly PORT: number;
  readonly DYNAMODB_PORT: number;
  /** The admin API's port. @default 0 - a free one, which the banner's `Admin API:` line names */
  readonly ADMIN_PORT?: number;
  /** The portal's port. @default 0 - a free one, which the banner's `Portal:` line names */
  readonly PORTAL_PORT?: number;
  /** The stack's directory (`PETSTORE_DIR`). */
  readonly dir: string;
  /** @default true */
  readonly inMemory?: boolean;
  /** More environment variables, e.g. `PATH`. */
  readonly env?: Readonly<Record<string, string>>;
  /** More arguments, e.g. `--help`. */
  readonly args?: readonly string[];
}

const running: Started[] = [];
const directories: string[] = [];

/** The first port of the bands {@link stackPort} draws from, and the size of each worker's band. */
const FIRST_PORT = 20_000;
const BAND_SIZE = 400;
/** Bands below the kernel's ephemeral range (32768 and up on Linux). */
const BANDS = 30;

/** Where this worker's next draw starts in its band: elsewhere in each run, each worker. */
let drawn = Math.floor(Math.random() * BAND_SIZE);

/**
 * A port free now for a process a test starts (a gateway, DynamoDB Local), and `following` more
 * free after it (1 for a stack of two regions, whose second region listens on the next port).
 * Drawn from this vitest worker's own band, below the kernel's ephemeral range: outgoing
 * connections and `listen(0)` draw from that range, and one of a file running in parallel could
 * take a kernel's pick between the pick and the child's bind, seconds later on a busy machine.
 *
 * @throws Error when no such port is free in the worker's band.
 */
export async function stackPort(following = 0): Promise<number> {
  const worker = Number(process.env.VITEST_POOL_ID ?? 1);
  const band = FIRST_PORT + ((worker - 1) % BANDS) * BAND_SIZE;
  for (let tries = 0; tries < BAND_SIZE; tries++) {
    const port = band + (drawn % (BAND_SIZE - following));
    drawn += 1;
    const ports = Array.from({ length: following + 1 }, (_, n) => port + n);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) {
      drawn += following;
      return port;
    }
  }
  throw new Error(`No ${following + 1} free ports in a row from ${band} to ${band + BAND_SIZE}`);
}

/** Whether nothing listens on `port`, on any interface. */
async function isFree(port: number): Promise<boolean> {
  try {
    await assertPortFree(port, '0.0.0.0', 'a test', 'PORT');
    return true;
  } catch {
    return false;
  }
}

/** Free ports ({@link stackPort}) and a fresh stack directory, removed by {@link stopAll}. */
export async function freshStack(): Promise<StackOptions> {
  const dir = await mkdtemp(join(tmpdir(), 'petstore-stack-'));
  directories.push(dir);
  const PORT = await stackPort();
  const DYNAMODB_PORT = await stackPort();
  const ADMIN_PORT = await stackPort();
  return { PORT, DYNAMODB_PORT, ADMIN_PORT, dir };
}

/**
 * Starts `npm start` (in memory unless told otherwise). The test worker's `DYNAMODB_ENDPOINT` (the
 * run's DynamoDB Local) is not passed on: the stack runs its own DynamoDB Local unless
 * `options.env` names an endpoint.
 */
export function startLocalStack(options: StackOptions): Started {
  const { DYNAMODB_ENDPOINT: _, ...inherited } = process.env;
  const child = spawn(
    TSX,
    [
      'infra/local/start.ts',
      ...(options.inMemory === false ? [] : ['--in-memory']),
      ...(options.args ?? []),
    ],
    {
      cwd: REPOSITORY_ROOT,
      env: {
        ...inherited,
        PORT: String(options.PORT),
        DYNAMODB_PORT: String(options.DYNAMODB_PORT),
        ADMIN_PORT: String(options.ADMIN_PORT ?? 0),
        PORTAL_PORT: String(options.PORTAL_PORT ?? 0),
        // The portal API's and its sign-in's: free ones, which the banner names.
        PORTAL_API_PORT: '0',
        PORTAL_AUTH_PORT: '0',
        PETSTORE_DIR: options.dir,
        ...options.env,
      },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const started: Started = {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    dynamoPort: options.DYNAMODB_PORT,
  };
  running.push(started);
  return started;
}

/** Starts a stack and waits for its banner. @returns The stack and its API base URL. */
export async function startedStack(
  options: StackOptions,
): Promise<{ started: Started; url: string }> {
  const started = startLocalStack(options);
  const [, url = ''] = await waitFor(started, /^Petstore API: (\S+)$/m, START_TIMEOUT_MS);
  return { started, url };
}

/**
 * Stops every stack started (SIGTERM, then SIGKILL), kills any DynamoDB Local left on their
 * ports, and removes their directories: for `afterEach`.
 */
export async function stopAll(): Promise<void> {
  for (const started of running.splice(0)) {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGTERM');
      await exitCodeWithin(started, EXIT_TIMEOUT_MS).catch(() => started.child.kill('SIGKILL'));
    }
    for (const pid of dynamoDbLocalPids(started.dynamoPort)) process.kill(pid, 'SIGKILL');
  }
  for (const dir of directories.splice(0)) await rm(dir, { recursive: true, force: true });
}

/** Resolves with the first match of `pattern` in stdout (or stderr), or fails after `timeoutMs`. */
export async function waitFor(
  started: Started,
  pattern: RegExp,
  timeoutMs: number,
  stream: 'stdout' | 'stderr' = 'stdout',
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = started[stream]().match(pattern);
    if (match) return match;
    if (started.child.exitCode !== null) {
      throw new Error(`npm start exited with ${started.child.exitCode}: ${started.stderr()}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`No ${pattern} within ${timeoutMs} ms: ${started[stream]()}`);
    }
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

/** The exit code, or a failure when the process has not exited within `timeoutMs`. */
export function exitCodeWithin(started: Started, timeoutMs: number): Promise<number | null> {
  return Promise.race([
    started.exited,
    new Promise<never>((_, fail) =>
      setTimeout(() => fail(new Error(`No exit within ${timeoutMs} ms`)), timeoutMs).unref(),
    ),
  ]);
}

/** Pids of the DynamoDB Local processes listening on a port. */
export function dynamoDbLocalPids(port: number): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter(
      (line) => line.includes('DynamoDBLocal.jar') && new RegExp(`-port ${port}\\b`).test(line),
    )
    .map((line) => Number.parseInt(line.trim(), 10));
}

/** The last non-empty line of a text. */
export function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

/** Resident set size of a process, in bytes (Linux `/proc`, via `ps`). */
export function residentBytes(pid: number): number {
  return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' })) * 1024;
}

/** Command lines of a process's descendants (children, their children…), from `ps`. */
export function descendantCommandLines(pid: number): string[] {
  const processes = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, child, parent, args]) => ({ pid: Number(child), ppid: Number(parent), args }));
  const found: string[] = [];
  const walk = (parent: number): void => {
    for (const child of processes.filter(({ ppid }) => ppid === parent)) {
      found.push(child.args ?? '');
      walk(child.pid);
    }
  };
  walk(pid);
  return found;
}
