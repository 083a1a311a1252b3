/**
 * The local gateway's integration timeout: a function that does not answer in time gets 504
 * `gateway_timeout` (INTEGRATION_TIMEOUT) at once, as API Gateway answers after 29 s, while the
 * function may still run. The functions reach DynamoDB Local through a TCP relay that the test
 * can make swallow everything, so that their calls hang as on a stalled network.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayResponse } from '../../infra/gateway-responses.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { seedKey } from '../support/test-keys.ts';

/** A TCP relay to DynamoDB Local that, once `stall` is set, forwards nothing either way. */
class StallingRelay {
  stall = false;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();

  constructor(readonly target: URL) {
    this.server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
      }
      client.on('data', (data) => this.stall || upstream.write(data));
      upstream.on('data', (data) => this.stall || client.write(data));
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((listening) => this.server.listen(0, '127.0.0.1', listening));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('No TCP address');
    return `http://127.0.0.1:${address.port}`;
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }
}

const relay = new StallingRelay(new URL(process.env.DYNAMODB_ENDPOINT ?? ''));
let gateway: LocalGateway;
let token: string;

beforeAll(async () => {
  ({ token } = await seedKey({ plan: 'business' }));
  // The gateway imports the functions at their first request: they read this endpoint then.
  process.env.DYNAMODB_ENDPOINT = await relay.listen();
  gateway = await startGateway({ port: 0, integrationTimeoutMs: 3_000 });
});
afterAll(async () => {
  await gateway.close();
  relay.close();
});

describe('integration timeout', () => {
  it('answers 504 gateway_timeout when the function has not answered within the integration timeout', async () => {
    // GIVEN a key the authorizer has accepted (its result now cached) through a working relay
    const headers = { Authorization: `Bearer ${token}` };
    expect((await fetch(`${gateway.url}/pets`, { headers })).status).toBe(200);

    // WHEN the function's DynamoDB calls hang
    relay.stall = true;
    const response = await fetch(`${gateway.url}/pets`, { headers });

    // THEN the gateway answers on its own
    const expected = gatewayResponse('INTEGRATION_TIMEOUT');
    expect(response.status).toBe(504);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(expected.body);
  });
});
