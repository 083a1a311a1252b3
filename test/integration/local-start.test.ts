/**
 * `npm start`: the local stack as a user runs it, in a child process (tsx, as the npm script
 * does), with its own DynamoDB Local on free ports.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/ports.ts';

const REPO_ROOT = resolve(import.meta.dirname, '../..');
const TSX = resolve(REPO_ROOT, 'node_modules/.bin/tsx');
/** Bounds of every wait: DynamoDB Local's JVM may take several seconds on a busy machine. */
const START_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 20_000;

interface Started {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const running: { started: Started; dynamoPort: number }[] = [];

/** After a failed test: stop the stack as a user would, and never leave its java behind. */
afterEach(async () => {
  for (const { started, dynamoPort } of running.splice(0)) {
    if (started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill('SIGTERM');
      await exitCodeWithin(started, EXIT_TIMEOUT_MS).catch(() => started.child.kill('SIGKILL'));
    }
    for (const pid of dynamoDbLocalPids(dynamoPort)) process.kill(pid, 'SIGKILL');
  }
});

function startLocalStack(env: { PORT: number; DYNAMODB_PORT: number; PATH?: string }): Started {
  const child = spawn(TSX, ['infra/local/start.ts', '--in-memory'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(env.PORT),
      DYNAMODB_PORT: String(env.DYNAMODB_PORT),
      PATH: env.PATH ?? process.env.PATH,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const started = { child, stdout: () => stdout, stderr: () => stderr, exited };
  running.push({ started, dynamoPort: env.DYNAMODB_PORT });
  return started;
}

/** Resolves with the first match of `pattern` in the output, or fails after `timeoutMs`. */
async function waitFor(
  started: Started,
  pattern: RegExp,
  timeoutMs: number,
): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = started.stdout().match(pattern);
    if (match) return match;
    if (started.child.exitCode !== null) {
      throw new Error(`npm start exited with ${started.child.exitCode}: ${started.stderr()}`);
    }
    if (Date.now() > deadline)
      throw new Error(`No ${pattern} within ${timeoutMs} ms: ${started.stdout()}`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

function exitCodeWithin(started: Started, timeoutMs: number): Promise<number | null> {
  return Promise.race([
    started.exited,
    new Promise<never>((_, fail) =>
      setTimeout(() => fail(new Error(`No exit within ${timeoutMs} ms`)), timeoutMs).unref(),
    ),
  ]);
}

/** Pids of the DynamoDB Local processes listening on a port. */
function dynamoDbLocalPids(port: number): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter(
      (line) => line.includes('DynamoDBLocal.jar') && new RegExp(`-port ${port}\\b`).test(line),
    )
    .map((line) => Number.parseInt(line.trim(), 10));
}

async function occupy(port: number): Promise<Server> {
  const server = createServer().listen(port, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

/** The last non-empty line of a text. */
function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

describe('npm start', { timeout: START_TIMEOUT_MS + EXIT_TIMEOUT_MS }, () => {
  it('serves the API with the keys it issues, and stops DynamoDB Local on SIGTERM', async () => {
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort() };
    const started = startLocalStack(ports);

    const [, url] = await waitFor(started, /^Petstore API: (\S+)$/m, START_TIMEOUT_MS);
    expect(url).toBe(`http://127.0.0.1:${ports.PORT}/v1`);
    const tokens = [
      ...started.stdout().matchAll(/^ {2}(free|pro|business) +key_\w+ +(psk_\S+)$/gm),
    ];
    expect(tokens.map(([, plan]) => plan)).toEqual(['free', 'pro', 'business']);
    const response = await fetch(`${url}/pets`, {
      headers: { Authorization: `Bearer ${tokens[0]?.[2]}` },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);
    const [javaPid] = dynamoDbLocalPids(ports.DYNAMODB_PORT);
    expect(javaPid).toBeGreaterThan(0);

    started.child.kill('SIGTERM');

    expect(await exitCodeWithin(started, EXIT_TIMEOUT_MS)).toBe(0);
    expect(dynamoDbLocalPids(ports.DYNAMODB_PORT)).toEqual([]);
    expect(() => process.kill(javaPid as number, 0)).toThrow(/ESRCH/);
    await expect(fetch(`http://127.0.0.1:${ports.DYNAMODB_PORT}`)).rejects.toThrow();
  });

  it.each<[envVar: 'PORT' | 'DYNAMODB_PORT', port: string, service: string]>([
    ['PORT', 'the gateway port', 'the gateway'],
    ['DYNAMODB_PORT', 'the DynamoDB Local port', 'DynamoDB Local'],
  ])('exits 1 with one line naming %s when %s is in use', async (envVar, _port, service) => {
    const ports = { PORT: await freePort(), DYNAMODB_PORT: await freePort() };
    const server = await occupy(ports[envVar]);
    try {
      const started = startLocalStack(ports);

      expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
      expect(lastLine(started.stderr())).toBe(
        `Port ${ports[envVar]} is already in use (${service}); free it or set ${envVar} to another port.`,
      );
      expect(started.stdout()).toBe('');
      expect(dynamoDbLocalPids(ports.DYNAMODB_PORT)).toEqual([]);
    } finally {
      server.close();
    }
  });

  it('exits 1 with one line saying what to install when Java is missing', async () => {
    const nodeOnly = await mkdtemp(join(tmpdir(), 'petstore-no-java-'));
    await symlink(process.execPath, join(nodeOnly, 'node'));
    try {
      const started = startLocalStack({
        PORT: await freePort(),
        DYNAMODB_PORT: await freePort(),
        PATH: nodeOnly,
      });

      expect(await exitCodeWithin(started, START_TIMEOUT_MS)).toBe(1);
      expect(lastLine(started.stderr())).toBe(
        'DynamoDB Local needs Java 17 or later: install it, e.g. apt-get install -y openjdk-17-jre-headless',
      );
      expect(started.stdout()).toBe('');
    } finally {
      await rm(nodeOnly, { recursive: true });
    }
  });
});
