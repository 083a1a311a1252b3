/**
 * The latency model of `bench/round-trips.ts`: a proxy in front of DynamoDB Local that holds every
 * call for a set time before passing it on (a network round trip, as on AWS), and records when each
 * call started and ended, so that a bench can count a request's sequential round trips.
 */
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
