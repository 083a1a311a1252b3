/**
 * The local gateway when a client closes its connection mid-body or while the operation runs:
 * logged once as the client's doing, never as a gateway failure, nothing written to the connection.
 */
import { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthorizerCache } from '../../infra/local/authorizer-cache.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { LambdaInvoker } from '../../infra/local/invocation.ts';
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

/** Records each answer write (`writeHead`, `write`, `end`) made to a closed connection. */
function watchWritesAfterClose(): string[] {
  const writes: string[] = [];
  for (const method of ['writeHead', 'write', 'end'] as const) {
    const original = ServerResponse.prototype[method] as (...args: unknown[]) => unknown;
    vi.spyOn(ServerResponse.prototype, method).mockImplementation(function (
      this: ServerResponse,
      ...args: unknown[]
    ) {
      if (this.socket === null || this.socket.destroyed) writes.push(method);
      return original.apply(this, args);
    } as never);
  }
  return writes;
}

/** A raw TCP connection to the gateway. */
function connectTo({ url }: LocalGateway): Socket {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  socket.on('error', () => {});
  return socket;
}

describe('a client that closes its connection before the body ended', () => {
  it('is logged as one line without a stack, never an ERROR, and gets nothing written after the close', async () => {
    // GIVEN the gateway's logger and every write of an answer watched
    const errors = vi.spyOn(logger, 'error');
    const aborts = [vi.spyOn(logger, 'warn'), vi.spyOn(logger, 'info')];
    const writesAfterClose = watchWritesAfterClose();
    // The usage plan is the last step before the body is read.
    const admitted = vi.spyOn(UsagePlanEmulator.prototype, 'consume');

    // WHEN an authorized POST announces 1,000 bytes, sends 10 and closes the connection
    const socket = connectTo(gateway);
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

describe('a client that closes its connection before its answer is ready', () => {
  /** Makes `method` of `prototype` settle only after `socket` has closed. */
  function afterClose(prototype: object, method: string, socket: Socket) {
    const gone = new Promise((closed) => socket.once('close', closed));
    const original = (prototype as Record<string, (...args: unknown[]) => Promise<unknown>>)[
      method
    ];
    return vi
      .spyOn(prototype as Record<string, () => Promise<unknown>>, method)
      .mockImplementation(async function (this: unknown, ...args: unknown[]) {
        await gone;
        await new Promise((wake) => setTimeout(wake, 100));
        return original?.apply(this, args);
      } as never);
  }

  it.each([
    ['the operation runs (its answer)', LambdaInvoker.prototype, 'invokeOperation', true],
    ['the authorizer runs (a 401)', AuthorizerCache.prototype, 'authorize', false],
  ] as const)(
    'gets nothing written after the close while %s',
    async (_when, prototype, method, validKey) => {
      // GIVEN a step that settles only once the client has gone
      const writesAfterClose = watchWritesAfterClose();
      const socket = connectTo(gateway);
      const step = afterClose(prototype, method, socket);
      const bearer = validKey ? token : 'bogus';

      // WHEN an authenticated GET is sent and its connection closed before the answer
      socket.write(`GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${bearer}\r\n\r\n`);
      await vi.waitFor(() => expect(step).toHaveBeenCalled(), { timeout: 10_000 });
      socket.destroy();

      // THEN the answer, once ready, is not written
      await step.mock.results[0]?.value;
      expect(writesAfterClose).toEqual([]);
    },
  );
});
