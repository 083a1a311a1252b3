/**
 * The stand-in for Route 53's failover routing (infra/local/failover.ts) in front of two HTTP
 * servers playing the regions: requests go to the primary while its health check passes, to the
 * secondary once it has failed `failureThreshold` times in a row, and back once it has passed as
 * often; each answer names its region; a region that does not accept the request gets 503 with
 * `Retry-After`.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Failover, startFailover } from '../../infra/local/failover.ts';

/** A region: answers its health path 200 while `healthy`, 503 otherwise; echoes everything else. */
interface FakeRegion {
  readonly name: string;
  readonly url: string;
  readonly server: Server;
  healthy: boolean;
  /** Health checks answered 503. */
  failedChecks: number;
}

const started: (Server | Failover)[] = [];

afterEach(async () => {
  for (const running of started.splice(0)) {
    if ('changes' in running) await running.close();
    else if (running.listening) await new Promise((closed) => running.close(closed));
  }
});

async function fakeRegion(name: string): Promise<FakeRegion> {
  const region = { name, healthy: true, failedChecks: 0 } as FakeRegion;
  const server = createServer((request, response) => {
    if (request.url === '/v1/health') {
      if (!region.healthy) region.failedChecks += 1;
      response.writeHead(region.healthy ? 200 : 503).end();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () =>
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          region: name,
          method: request.method,
          url: request.url,
          authorization: request.headers.authorization,
          body: Buffer.concat(chunks).toString(),
        }),
      ),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  started.push(server);
  return Object.assign(region, {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
  });
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('Not within 20 s');
    await new Promise((wake) => setTimeout(wake, 20));
  }
}

describe('the failover stand-in', () => {
  it('answers from the primary while it is healthy, from the secondary once it has failed its checks, and from the primary again once it passes them', async () => {
    const primary = await fakeRegion('us-east-1');
    const secondary = await fakeRegion('eu-west-1');
    const failover = await startFailover({
      targets: [primary, secondary],
      healthCheck: { path: '/health', intervalMs: 50, failureThreshold: 3, timeoutMs: 1_000 },
    });
    started.push(failover);
    const post = () =>
      fetch(`${failover.url}/pets?x=1`, {
        method: 'POST',
        headers: { Authorization: 'Bearer k' },
        body: '{"name":"Rex"}',
      });

    const first = await post();
    expect(first.headers.get('x-failover-region')).toBe('us-east-1');
    expect(await first.json()).toEqual({
      region: 'us-east-1',
      method: 'POST',
      url: '/v1/pets?x=1',
      authorization: 'Bearer k',
      body: '{"name":"Rex"}',
    });

    primary.healthy = false;
    await until(() => failover.changes().length === 1);
    expect(primary.failedChecks).toBeGreaterThanOrEqual(3);
    expect(failover.changes()).toEqual([
      { target: 'us-east-1', healthy: false, at: expect.any(Number) },
    ]);
    const during = await post();
    expect(during.headers.get('x-failover-region')).toBe('eu-west-1');
    expect(((await during.json()) as { region: string }).region).toBe('eu-west-1');

    primary.healthy = true;
    await until(() => failover.changes().length === 2);
    expect(failover.changes()[1]).toMatchObject({ target: 'us-east-1', healthy: true });
    expect(((await (await post()).json()) as { region: string }).region).toBe('us-east-1');
  });

  it('answers 503 with Retry-After and an Error body when the region does not accept the request', async () => {
    const primary = await fakeRegion('us-east-1');
    const failover = await startFailover({
      targets: [primary],
      healthCheck: { path: '/health', intervalMs: 60_000 },
    });
    started.push(failover);
    await new Promise((closed) => primary.server.close(closed));

    const answer = await fetch(`${failover.url}/pets`);

    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.headers.get('x-failover-region')).toBe('us-east-1');
    expect(await answer.json()).toEqual({
      code: 'service_unavailable',
      message: 'Region us-east-1 does not answer; retry after 5 seconds.',
      status: 503,
    });
  });
});
