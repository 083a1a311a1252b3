/**
 * The local gateway when a client closes its connection mid-body: logged once as the client's
 * doing, never as a gateway failure, and nothing written to the closed connection.
 */
import { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { CLIENT_ABORT_MESSAGE } from '../../infra/local/server.ts';
import { UsagePlanEmulator } from '../../infra/local/usage-plans.ts';
import { logger } from '../../shared/logger.ts';
import { issueToken } from '../support/api-client.ts';

let gateway: LocalGateway;
let token: string;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  token = await issueToken('business');
});
afterAll(() => gateway?.close());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('a client that closes its connection before the body ended', () => {
  it('is logged as one line without a stack, never an ERROR, and gets nothing written after the close', async () => {
    // GIVEN the gateway's logger and every write of an answer watched
    const errors = vi.spyOn(logger, 'error');
    const aborts = [vi.spyOn(logger, 'warn'), vi.spyOn(logger, 'info')];
    const writesAfterClose: string[] = [];
    for (const method of ['writeHead', 'write', 'end'] as const) {
      const original = ServerResponse.prototype[method] as (...args: unknown[]) => unknown;
      vi.spyOn(ServerResponse.prototype, method).mockImplementation(function (
        this: ServerResponse,
        ...args: unknown[]
      ) {
        if (this.socket === null || this.socket.destroyed) writesAfterClose.push(method);
        return original.apply(this, args);
      } as never);
    }
    // The usage plan is the last step before the body is read.
    const admitted = vi.spyOn(UsagePlanEmulator.prototype, 'consume');
    const { port } = new URL(gateway.url);

    // WHEN an authorized POST announces 1,000 bytes, sends 10 and closes the connection
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"`,
    );
    await vi.waitFor(() => expect(admitted).toHaveBeenCalled(), { timeout: 10_000 });
    socket.destroy();

    // THEN one line says the client closed it (logged with the answer's writes, were there any),
    // and nothing else is logged or written
    const logged = () => aborts.flatMap((spy) => spy.mock.calls);
    await vi.waitFor(() => expect(logged().length + errors.mock.calls.length).toBeGreaterThan(0), {
      timeout: 10_000,
    });
    expect(errors.mock.calls).toEqual([]);
    expect(logged()).toEqual([
      [CLIENT_ABORT_MESSAGE, expect.not.objectContaining({ error: expect.anything() })],
    ]);
    expect(writesAfterClose).toEqual([]);
  });
});
