/**
 * The local gateway of `npm start` under hostile input, over raw sockets and HTTP: every answer
 * is an Error body with the right status and never a 5xx, ambiguous credentials are refused, the
 * body is read only for an authorized request and only up to 10 MB, slow clients get 408, memory
 * stays bounded (RSS of the stack's process), and each invocation logs its own request id.
 */
import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayResponse } from '../../infra/gateway-responses.ts';
import type { ErrorBody } from '../../shared/http/http-errors.ts';
import { earlyInUtcMinute } from '../support/clock.ts';
import {
  EXIT_TIMEOUT_MS,
  freshStack,
  residentBytes,
  START_TIMEOUT_MS,
  type StackOptions,
  type Started,
  startedStack,
  stopAll,
} from '../support/local-stack.ts';

let stack: StackOptions;
let started: Started;
let url: string;
/** Tokens the banner shows, by plan. */
const tokens: Record<string, string> = {};

beforeAll(async () => {
  // The functions' logs on, for the request ids they carry; the limiter never fails open (a loaded
  // machine can keep DynamoDB Local past its 5 s deadline during the 90-request burst).
  stack = {
    ...(await freshStack()),
    env: { POWERTOOLS_LOG_LEVEL: 'INFO', RATE_LIMIT_DEADLINE_MS: '60000' },
  };
  ({ started, url } = await startedStack(stack));
  for (const [, plan = '', token = ''] of started
    .stdout()
    .matchAll(/^ {2}(free|pro|business) +key_\w+ +(pet_local_\S+)$/gm)) {
    tokens[plan] = token;
  }
}, START_TIMEOUT_MS);
afterAll(stopAll, EXIT_TIMEOUT_MS);

/**
 * One raw exchange: what the server answered, once the whole answer is in (its head and the bytes
 * its Content-Length says), the server closed, or `waitMs` passed.
 */
async function raw(request: string | Buffer, waitMs = 5_000): Promise<RawAnswer> {
  const socket = connect(stack.PORT, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('error', () => {});
  socket.write(request);
  await new Promise<void>((done) => {
    const timer = setTimeout(done, waitMs);
    const finish = () => {
      clearTimeout(timer);
      done();
    };
    socket.on('close', finish);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (isWhole(Buffer.concat(chunks))) finish();
    });
  });
  socket.destroy();
  return parseAnswer(Buffer.concat(chunks).toString('utf8'));
}

/** Whether `received` holds a whole answer: its head, then the body its Content-Length gives. */
function isWhole(received: Buffer): boolean {
  const headEnd = received.indexOf('\r\n\r\n');
  if (headEnd < 0) return false;
  const head = received.subarray(0, headEnd).toString('latin1');
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  return length !== undefined && received.length >= headEnd + 4 + Number(length);
}

interface RawAnswer {
  status: number;
  headers: string;
  body: unknown;
}

function parseAnswer(text: string): RawAnswer {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  let body: unknown;
  try {
    body = JSON.parse(rest.join('\r\n\r\n'));
  } catch {
    body = rest.join('\r\n\r\n');
  }
  return { status, headers: head, body };
}

function expectErrorBody(answer: RawAnswer, status: number, code: ErrorBody['code']): void {
  expect(answer.status).toBe(status);
  expect(answer.headers).toMatch(/^content-type: application\/json$/im);
  expect(answer.body).toEqual({ code, message: expect.any(String), status });
}

describe('requests Node or the URL parser cannot take', { timeout: 60_000 }, () => {
  it.each([
    ['a target that is not a path, with a bad escape', 'GET *% HTTP/1.1', 400, 'bad_request'],
    ['the asterisk target', 'OPTIONS * HTTP/1.1', 400, 'bad_request'],
    ['an absolute target', 'GET http://x/v1/pets HTTP/1.1', 400, 'bad_request'],
    ['a path with a lone %', 'GET /v1/pets/% HTTP/1.1', 401, 'unauthorized'],
    ['a path of two slashes', 'GET //v1/pets HTTP/1.1', 404, 'not_found'],
    ['an unknown method', 'BREW /v1/pets HTTP/1.1', 400, 'bad_request'],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1', 400, 'bad_request'],
    ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM', 400, 'bad_request'],
  ] as const)('answers %s with an Error body, never a 5xx', async (_what, line, status, code) => {
    const answer = await raw(`${line}\r\nHost: x\r\n\r\n`);

    expectErrorBody(answer, status, code);
  });

  it('answers a malformed header line with 400 bad_request', async () => {
    expectErrorBody(await raw('GET /v1/pets HTTP/1.1\r\nHost x\r\n\r\n'), 400, 'bad_request');
  });

  it('answers a target over 8192 bytes with 414 uri_too_long', async () => {
    const answer = await raw(`GET /v1/pets?q=${'a'.repeat(9_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);

    expectErrorBody(answer, 414, 'uri_too_long');
  });

  it('answers a target over the header limit with 414 uri_too_long', async () => {
    const answer = await raw(`GET /v1/pets?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);

    expectErrorBody(answer, 414, 'uri_too_long');
  });

  it('answers headers over 16 KiB with 431 headers_too_large', async () => {
    const answer = await raw(
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );

    expectErrorBody(answer, 431, 'headers_too_large');
  });

  it('serves a request with an unknown expectation as if it had none', async () => {
    const answer = await raw('GET /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: tea\r\n\r\n', 2_000);

    expectErrorBody(answer, 401, 'unauthorized');
  });

  it('answers 408 request_timeout when the client does not finish its headers in time', async () => {
    const answer = await raw('GET /v1/pets HTTP/1.1\r\nHost: x\r\n', 20_000);

    expectErrorBody(answer, 408, 'request_timeout');
  });
});

describe('credentials and bodies', { timeout: 60_000 }, () => {
  const UNAUTHORIZED = gatewayResponse('UNAUTHORIZED').body;

  it.each([
    ['a bogus value first and a valid one second', (valid: string) => ['Bearer bogus', valid]],
    ['a valid value first and a bogus one second', (valid: string) => [valid, 'Bearer bogus']],
    ['the valid value twice', (valid: string) => [valid, valid]],
  ])(
    'answers 401 to two Authorization headers, %s, and caches nothing for either',
    async (_what, values) => {
      const valid = `Bearer ${tokens.business}`;
      const headers = values(valid)
        .map((value) => `Authorization: ${value}\r\n`)
        .join('');

      const answer = await raw(`GET /v1/pets HTTP/1.1\r\nHost: x\r\n${headers}\r\n`, 2_000);

      expect(answer.status).toBe(401);
      expect(answer.body).toEqual(UNAUTHORIZED);
      const bogus = await fetch(`${url}/pets`, { headers: { Authorization: 'Bearer bogus' } });
      expect(bogus.status).toBe(401);
      expect((await fetch(`${url}/pets`, { headers: { Authorization: valid } })).status).toBe(200);
    },
  );

  it('answers 413 payload_too_large once a chunked body of an authorized request passes 10 MB', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 11; i++) controller.enqueue(chunk);
        controller.close();
      },
    });

    const response = await fetch(`${url}/pets`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${tokens.business}`, 'Content-Type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);

    expect(response.status).toBe(413);
    expect(await response.json()).toEqual(gatewayResponse('REQUEST_TOO_LARGE').body);
  });

  it('answers 401 to an unauthenticated POST before reading its body', async () => {
    // Headers announce 10 MB, but not a byte of the body is sent: only an answer that does not
    // wait for the body can arrive.
    const answer = await raw(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`,
      3_000,
    );

    expect(answer.status).toBe(401);
    expect(answer.body).toEqual(UNAUTHORIZED);
  });
});

describe('memory', { timeout: 240_000 }, () => {
  /** The stack's own process (not tsx's launcher), from its pid file. */
  async function stackPid(): Promise<number> {
    const file = join(stack.dir, `dynamodb-local-${stack.DYNAMODB_PORT}.pid`);
    return (JSON.parse(await readFile(file, 'utf8')) as { stack: number }).stack;
  }

  /** Runs `count` tasks, `concurrency` at a time. */
  async function inParallel(
    count: number,
    concurrency: number,
    task: (i: number) => Promise<void>,
  ) {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await task(next++);
      }),
    );
  }

  /** Sends `count` requests, each with a distinct unknown 8 KB key, from `first` on. */
  async function unknownKeys(first: number, count: number): Promise<void> {
    const padding = 'k'.repeat(8 * 1024);
    await inParallel(count, 16, async (i) => {
      const response = await fetch(`${url}/pets`, {
        headers: { Authorization: `Bearer unknown${first + i}${padding}` },
      });
      expect(response.status).toBe(401);
      await response.arrayBuffer();
    });
  }

  /** Sends `count` unauthenticated POSTs of 10 MB, 8 at a time. */
  async function largeBodies(count: number): Promise<void> {
    const body = Buffer.alloc(10 * 1024 * 1024, 'a');
    await inParallel(count, 8, async () => {
      const response = await fetch(`${url}/pets`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      }).catch(() => undefined);
      if (response) {
        expect(response.status).toBe(401);
        await response.arrayBuffer();
      }
    });
  }

  it('grows the gateway by less than 100 MiB for 12,000 distinct 8 KB keys and 40 unauthenticated 10 MB bodies', async () => {
    // The same traffic first, so that the heap has grown to its working size: what follows
    // measures what the gateway keeps, not how much garbage V8 lets pile up (each invocation's
    // deadline timer holds its objects for 9 s).
    await unknownKeys(0, 4_000);
    await largeBodies(8);
    const pid = await stackPid();
    const before = residentBytes(pid);

    await unknownKeys(4_000, 12_000);
    await largeBodies(40);
    const after = residentBytes(pid);

    console.info(
      `gateway RSS: ${(before / 2 ** 20).toFixed(0)} MiB before, ${(after / 2 ** 20).toFixed(0)} MiB after`,
    );
    expect(after - before).toBeLessThan(100 * 2 ** 20);
  });
});

describe('logs', { timeout: 60_000 }, () => {
  it("writes each invocation's own request id on its log lines, 90 requests at once", async () => {
    // GIVEN a fresh Free key (60 per minute): of 90 concurrent requests, 30 are refused, and the
    // function logs each refusal after awaiting the counters table, while others run; all in one
    // minute window (a burst split across two windows is admitted whole)
    await earlyInUtcMinute();
    const requests = Array.from({ length: 90 }, () =>
      fetch(`${url}/pets`, { headers: { Authorization: `Bearer ${tokens.free}` } }),
    );

    // WHEN they have all been answered
    const responses = await Promise.all(requests);
    await new Promise((wake) => setTimeout(wake, 500));

    // THEN the refusals' log lines carry exactly the request ids of the 429 answers
    const refusedIds = responses
      .filter((response) => response.status === 429)
      .map((response) => response.headers.get('x-amzn-requestid'));
    const loggedIds = started
      .stdout()
      .split('\n')
      .filter((line) => line.includes('Request refused by the rate limiter'))
      .map((line) => (JSON.parse(line) as { function_request_id?: string }).function_request_id);
    const statuses = responses.map((response) => response.status).join(',');
    expect(refusedIds, `statuses: ${statuses}`).toHaveLength(30);
    expect(loggedIds.sort()).toEqual(refusedIds.sort());
  });
});
