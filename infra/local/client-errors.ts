/**
 * Answers to what never reaches the request handler (what Node's parser refuses, a slow client,
 * `CONNECT`): an Error body written to the socket, then the connection closed.
 */

import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorBody } from '../../shared/http/http-errors.ts';
import { gatewayResponse } from '../gateway-responses.ts';

/** Longest request target API Gateway accepts, in bytes (its URL length quota). */
export const MAX_TARGET_BYTES = 8192;

/** The Error body of 414: a target over {@link MAX_TARGET_BYTES}. */
export const URI_TOO_LONG: ErrorBody = {
  code: 'uri_too_long',
  message: `The request target is longer than ${MAX_TARGET_BYTES} bytes.`,
  status: 414,
};

const REQUEST_TIMEOUT: ErrorBody = {
  code: 'request_timeout',
  message: 'The request was not sent in time.',
  status: 408,
};

const HEADERS_TOO_LARGE: ErrorBody = {
  code: 'headers_too_large',
  message: 'The request line and headers are larger than 16 KiB.',
  status: 431,
};

/**
 * The Error body for a parse or timeout error of Node's HTTP server (`clientError`).
 *
 * A header overflow with a request line (as far as received) over {@link MAX_TARGET_BYTES} is a
 * target too long (414), else headers too large (431); a timeout is 408; a body over the
 * chunk-extension limit is 413; any other parse error (bad method, bad header, bad framing) is
 * 400 `bad_request`.
 */
export function clientErrorBody(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): ErrorBody {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return REQUEST_TIMEOUT;
    case 'HPE_HEADER_OVERFLOW':
      return requestLineBytes(error.rawPacket) > MAX_TARGET_BYTES
        ? URI_TOO_LONG
        : HEADERS_TOO_LARGE;
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return gatewayResponse('REQUEST_TOO_LARGE').body;
    default:
      return gatewayResponse('DEFAULT_4XX').body;
  }
}

/** Bytes of the request line in what the parser last received (all of it when it has no end). */
function requestLineBytes(packet: Buffer | undefined): number {
  if (!packet) return 0;
  const end = packet.indexOf('\r\n');
  return end === -1 ? packet.length : end;
}

/**
 * Writes an Error response to a raw socket and closes it once written.
 *
 * @param headers Extra response headers, e.g. `x-amzn-RequestId`.
 */
export function writeErrorToSocket(
  socket: Duplex,
  body: ErrorBody,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const payload = JSON.stringify(body);
  const lines = [
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(payload)}`,
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${payload}`);
}
