/**
 * The HTTP side of the local gateway, on `node:http`: the server and its timeouts, reading a
 * request within API Gateway's 10 MB payload limit, and writing answers (Error bodies of
 * docs/api.md, gateway responses, Lambda proxy results), never to a closed connection.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../../shared/logger.ts';
import type { SettingName } from '../../shared/settings.ts';
import {
  type GatewayResponseDefinition,
  type GatewayResponseType,
  gatewayResponse,
} from '../gateway-responses.ts';
import { clientErrorBody, writeErrorToSocket } from './client-errors.ts';
import type { ProxyResult } from './lambda-results.ts';
import { PortInUseError } from './local-stack-errors.ts';

/** API Gateway's payload limit: 10 MB. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/**
 * How long a client may take to send its request line and headers, and its whole request; then
 * it gets 408. Node checks them every {@link CONNECTIONS_CHECK_INTERVAL_MS}.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;
const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/** Where {@link listen} listens. */
export interface ListenOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  readonly host: string;
  /** The environment variable that picks the port, named when the port is taken, e.g. `PORT`. */
  readonly portEnv: SettingName;
}

/** A listening server. */
export interface ListeningServer {
  /** The port it listens on (the one picked, when asked for 0). */
  readonly port: number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server that passes each request to `handle`. A request that `handle` fails on
 * (it rejects) is logged and answered DEFAULT_5XX, or its connection reset when the answer has
 * begun. What Node's parser refuses, a request not sent in time and `CONNECT` get an Error body
 * written to the socket (client-errors.ts); an `Expect` header is ignored, as API Gateway does.
 *
 * @throws PortInUseError when the port is taken.
 */
export async function listen(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  options: ListenOptions,
): Promise<ListeningServer> {
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    },
    (request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (error instanceof ClientClosedError) {
          logger.info(CLIENT_ABORT_MESSAGE, {
            requestId: response.getHeader('x-amzn-RequestId'),
          });
          return;
        }
        logger.error('Local gateway failed', { error });
        if (!response.headersSent) sendGatewayResponse(response, 'DEFAULT_5XX');
        else response.destroy();
      });
    },
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET') return socket.destroy();
    writeErrorToSocket(socket, clientErrorBody(error), { 'x-amzn-RequestId': randomUUID() });
  });
  // A tunnel is no request to the API: its target is no path of it.
  server.on('connect', (_request: IncomingMessage, socket) =>
    writeErrorToSocket(socket, gatewayResponse('DEFAULT_4XX').body, {
      'x-amzn-RequestId': randomUUID(),
    }),
  );
  // RFC 9110 lets a server ignore an expectation it does not know; API Gateway does.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    server.emit('request', request, response),
  );
  await new Promise<void>((listening, failed) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      failed(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(options.port, 'the gateway', options.portEnv)
          : error,
      ),
    );
    server.listen(options.port, options.host, listening);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

/** The log line of a request whose client closed its connection while sending the body. */
export const CLIENT_ABORT_MESSAGE = 'Client closed the connection before the body ended';

/** The client closed its connection before the request's body ended: nothing to answer. */
export class ClientClosedError extends Error {
  constructor(options?: ErrorOptions) {
    super(CLIENT_ABORT_MESSAGE, options);
    this.name = 'ClientClosedError';
  }
}

/** Whether the response's connection is closed, so that nothing may be written to it. */
function isClosed(response: ServerResponse): boolean {
  return response.destroyed || response.socket?.destroyed === true;
}

/** Whether the request's `Content-Length` declares a body over API Gateway's 10 MB. */
export function declaresTooLargeBody(request: IncomingMessage): boolean {
  return Number(request.headers['content-length'] ?? 0) > MAX_PAYLOAD_BYTES;
}

/**
 * The body's bytes, or `undefined` when it exceeds API Gateway's 10 MB. Past 10 MB nothing more is
 * kept: the rest is read and dropped, so that the client, still sending, gets the answer rather
 * than a reset connection (the server's request timeout bounds how long it may send).
 *
 * @throws ClientClosedError when the client closes the connection before the body ended.
 */
export async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes <= MAX_PAYLOAD_BYTES) chunks.push(chunk);
      else chunks.length = 0;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ECONNRESET') {
      throw new ClientClosedError({ cause: error });
    }
    throw error;
  }
  return bytes <= MAX_PAYLOAD_BYTES ? Buffer.concat(chunks) : undefined;
}

/**
 * Request headers with the names as the client sent them (API Gateway keeps their case), each
 * with every value in the order sent (Node's `headers` keeps only the first of some).
 */
export function receivedHeaders(request: IncomingMessage): Record<string, string[]> {
  // Null prototype: a header named `constructor` or `__proto__` is a name like any other.
  const headers: Record<string, string[]> = Object.create(null);
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    const [name = '', value = ''] = request.rawHeaders.slice(i, i + 2);
    headers[name] = [...(headers[name] ?? []), value];
  }
  return headers;
}

/** An answer the gateway makes by itself: an Error body and its extra headers. */
export type ErrorResponse = Pick<GatewayResponseDefinition, 'body' | 'headers'>;

/** Answers with the gateway response of a type (infra/gateway-responses.ts). */
export function sendGatewayResponse(response: ServerResponse, type: GatewayResponseType): void {
  sendError(response, gatewayResponse(type));
}

/** Answers with an Error body (JSON, the body's `status`) and its headers; not to a closed connection. */
export function sendError(response: ServerResponse, { body, headers }: ErrorResponse): void {
  sendJson(response, body, body.status, headers);
}

/** Answers with `value` as JSON, status 200 unless told; not to a closed connection. */
export function sendJson(
  response: ServerResponse,
  value: unknown,
  status = 200,
  headers: ErrorResponse['headers'] = {},
): void {
  if (isClosed(response)) return;
  const payload = JSON.stringify(value);
  response.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
  });
  response.end(payload);
}

/**
 * Copies a proxy result to the response. `multiValueHeaders` win over `headers` of the same name,
 * the Content-Type defaults to JSON, and a base64-encoded body is sent decoded, as API Gateway
 * does. Nothing is written to a closed connection.
 */
export function sendProxyResult(response: ServerResponse, result: ProxyResult): void {
  if (isClosed(response)) return;
  response.setHeader('Content-Type', 'application/json');
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    response.setHeader(name, String(value));
  }
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    response.setHeader(name, values.map(String));
  }
  response.writeHead(result.statusCode);
  response.end(
    result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : undefined,
  );
}
