/**
 * The latency model of `bench/round-trips.ts`: a proxy in front of DynamoDB Local that holds every
 * call for a set time before passing it on (a network round trip, as on AWS), and records when each
 * call started and ended, so that a bench can count a request's sequential round trips.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { Agent, createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** One DynamoDB call through the proxy; times from `performance.now()`, in ms. */
export interface ProxiedCall {
  /** The API's operation, e.g. `GetItem` (from `X-Amz-Target`). */
  readonly operation: string;
  readonly start: number;
  readonly end: number;
}

/** A running {@link startDelayingProxy}. */
export interface DelayingProxy {
  /** The endpoint to give the clients instead of DynamoDB Local's, e.g. `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  /** Every call answered so far, in the order their answers ended. */
  readonly calls: ProxiedCall[];
  /** Stops listening and closes its connections. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on a free port of 127.0.0.1 that forwards every request to `target` after
 * `delayMs` milliseconds, the request's body read in full first.
 *
 * @param target DynamoDB Local's endpoint, e.g. `http://127.0.0.1:8000`.
 */
export async function startDelayingProxy(target: string, delayMs: number): Promise<DelayingProxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const calls: ProxiedCall[] = [];
  const server = createServer(async (request, response) => {
    const start = performance.now();
    const body = Buffer.concat(await request.toArray());
    await sleep(delayMs);
    const operation = String(request.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    const upstreamCall = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: request.headers,
        agent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
        answer.on('end', () => calls.push({ operation, start, end: performance.now() }));
      },
    );
    upstreamCall.on('error', (error) => response.destroy(error));
    upstreamCall.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      agent.destroy();
    },
  };
}

/** A running {@link startDelayingProxyProcess}. */
export interface DelayingProxyProcess {
  /** The endpoint to give the clients instead of DynamoDB Local's, e.g. `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  /** Process id of the proxy's process. */
  readonly pid: number;
  /**
   * The calls answered since the last take, in the order their answers ended (times on the
   * proxy process's clock: compare them with each other only).
   */
  takeCalls(): Promise<ProxiedCall[]>;
  /** Ends the proxy's process and waits for its exit. */
  close(): Promise<void>;
}

/**
 * {@link startDelayingProxy} in a child process of its own (`bench/delaying-proxy-main.ts`, with
 * this process's loader flags), so that a CPU can be set apart for it: the network's delay on AWS
 * takes none of the function's CPU.
 *
 * @param target DynamoDB Local's endpoint, e.g. `http://127.0.0.1:8000`.
 * @throws Error when the process exits before it listens.
 */
export async function startDelayingProxyProcess(
  target: string,
  delayMs: number,
): Promise<DelayingProxyProcess> {
  const child = fork(new URL('./delaying-proxy-main.ts', import.meta.url), [
    target,
    String(delayMs),
  ]);
  const exited = once(child, 'exit');
  const [ready] = (await Promise.race([
    once(child, 'message'),
    exited.then(() => {
      throw new Error(`The delaying proxy's process exited at start (code ${child.exitCode})`);
    }),
  ])) as [{ endpoint: string }];
  return {
    endpoint: ready.endpoint,
    pid: child.pid as number,
    takeCalls: async () => {
      // One take at a time: the bench asks after each request, and waits.
      const answer = once(child, 'message');
      child.send('take');
      const [{ calls }] = (await answer) as [{ calls: ProxiedCall[] }];
      return calls;
    },
    close: async () => {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

/**
 * The sequential round trips among `calls`: the most calls of which each started after the one
 * before it ended (what a request waits for, when calls in parallel count once).
 */
export function sequentialRoundTrips(calls: readonly ProxiedCall[]): number {
  let count = 0;
  let lastEnd = Number.NEGATIVE_INFINITY;
  // Earliest end first: the longest chain of calls that do not overlap (interval scheduling).
  for (const call of [...calls].sort((a, b) => a.end - b.end)) {
    if (call.start >= lastEnd) {
      count += 1;
      lastEnd = call.end;
    }
  }
  return count;
}
