/**
 * A local stand-in for Route 53's failover routing in front of the regions of the two-region
 * stack (docs/local-stack.md, "The failover drill"): one address for the API; each request goes
 * to the first region whose health check is healthy, in the order given (primary first), as a
 * failover record set answers with the primary while it is healthy, and with the primary again
 * once it recovers.
 *
 * Its health checks follow Route 53's HTTP checks, scaled down and settable: every `intervalMs`
 * (Route 53: 30 s, or 10 s for fast checks) a request for `path`, healthy when it answers 2xx or
 * 3xx within `timeoutMs` (Route 53: 4 s to connect, 2 s more for the answer); a region becomes
 * unhealthy after `failureThreshold` failures in a row and healthy again after as many successes
 * (Route 53: 3). The path should read from the region's tables (e.g. `/pets?limit=1`), so that the
 * check fails when the region cannot serve, not only when its gateway is gone.
 *
 * Where it differs: one checker, not Route 53's fleet (a region is unhealthy when fewer than 18%
 * of its checkers see it healthy); no DNS, so no record TTL: a switch applies to the next request
 * (clients that cached the answer keep the failed region for up to the TTL, often 60 s, which adds
 * to the RTO); the check may send headers (an API key), which Route 53's checks cannot: a deployed
 * stage needs a health path that reads without one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../shared/http/unavailable.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import { listen, readBody, sendJson } from './server.ts';

/** A region behind the stand-in. */
export interface FailoverTarget {
  /** Its name, e.g. `us-east-1`: named in each answer's `X-Failover-Region` header. */
  readonly name: string;
  /** Its API's base URL, e.g. `http://127.0.0.1:3000/v1`. */
  readonly url: string;
}

/** The health check of every target. */
export interface HealthCheckOptions {
  /** The path read, after the target's base URL, e.g. `/pets?limit=1`. */
  readonly path: string;
  /** Headers of the check's request, e.g. `{ Authorization: 'Bearer …' }`. @default {} */
  readonly headers?: Readonly<Record<string, string>>;
  /** Milliseconds between checks. @default 1000 (Route 53: 30 000 or 10 000) */
  readonly intervalMs?: number;
  /** Failures (or successes) in a row that change a target's status. @default 3 (Route 53's) */
  readonly failureThreshold?: number;
  /** Milliseconds a check waits for the answer. @default 1000 */
  readonly timeoutMs?: number;
}

/** Options of {@link startFailover}. */
export interface FailoverOptions {
  /** The regions, primary first. */
  readonly targets: readonly FailoverTarget[];
  readonly healthCheck: HealthCheckOptions;
  /** TCP port on 127.0.0.1; 0 picks a free one. @default 0 */
  readonly port?: number;
}

/** A change of a target's health status. */
export interface HealthChange {
  /** The target's name. */
  readonly target: string;
  readonly healthy: boolean;
  /** Epoch milliseconds. */
  readonly at: number;
}

/** A running stand-in. */
export interface Failover {
  /** Its API's base URL, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  /** Every change of a target's status so far, oldest first (all start healthy). */
  changes(): readonly HealthChange[];
  /** The target that answers the next request: the first healthy one, else the primary. */
  active(): FailoverTarget;
  /** Stops checking and listening. */
  close(): Promise<void>;
}

/** The answer when the target does not accept the request (its gateway is gone). */
function targetUnavailable(name: string) {
  return {
    code: 'service_unavailable',
    message: `Region ${name} does not answer; retry after ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
    status: 503,
  };
}

/**
 * Starts the stand-in: its health checks at once (every target starts healthy), then its proxy.
 * Each answer carries `X-Failover-Region`, the target that gave it.
 *
 * @throws PortInUseError when the port is taken.
 */
export async function startFailover(options: FailoverOptions): Promise<Failover> {
  const { targets, healthCheck } = options;
  const intervalMs = healthCheck.intervalMs ?? 1_000;
  const threshold = healthCheck.failureThreshold ?? 3;
  const timeoutMs = healthCheck.timeoutMs ?? 1_000;
  const healthy = targets.map(() => true);
  const streaks = targets.map(() => 0);
  const changes: HealthChange[] = [];
  const active = () => targets[Math.max(healthy.indexOf(true), 0)] as FailoverTarget;

  const check = async (index: number): Promise<void> => {
    const target = targets[index] as FailoverTarget;
    let ok: boolean;
    try {
      const answer = await fetch(`${target.url}${healthCheck.path}`, {
        headers: healthCheck.headers,
        signal: AbortSignal.timeout(timeoutMs),
      });
      await answer.arrayBuffer();
      ok = answer.status >= 200 && answer.status < 400;
    } catch {
      ok = false;
    }
    // A streak counts the checks that disagree with the status, in a row.
    streaks[index] = ok === healthy[index] ? 0 : (streaks[index] ?? 0) + 1;
    if ((streaks[index] ?? 0) >= threshold) {
      healthy[index] = ok;
      streaks[index] = 0;
      changes.push({ target: target.name, healthy: ok, at: Date.now() });
    }
  };
  const timer = setInterval(() => {
    for (const index of targets.keys()) void check(index);
  }, intervalMs);

  const server = await listen((request, response) => forward(request, response, active()), {
    port: options.port ?? 0,
    host: '127.0.0.1',
    portEnv: 'PORT',
  });
  return {
    url: `http://127.0.0.1:${server.port}/${API_STAGE_NAME}`,
    changes: () => [...changes],
    active,
    close: async () => {
      clearInterval(timer);
      await server.close();
    },
  };
}

/**
 * Sends a request to the target (same path, method, headers and body) and its answer back, with
 * `X-Failover-Region`; a target that does not accept it gets 503 with `Retry-After`.
 */
async function forward(
  request: IncomingMessage,
  response: ServerResponse,
  target: FailoverTarget,
): Promise<void> {
  const body = (await readBody(request)) ?? Buffer.alloc(0);
  const origin = new URL(target.url);
  const region = { 'X-Failover-Region': target.name };
  await new Promise<void>((done) => {
    const upstream = httpRequest(
      {
        host: origin.hostname,
        port: origin.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: origin.host },
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...region });
        answer.pipe(response);
        answer.once('end', done).once('error', done);
      },
    );
    upstream.once('error', () => {
      sendJson(response, targetUnavailable(target.name), 503, {
        ...region,
        'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
      });
      done();
    });
    upstream.end(body);
  });
}
