/**
 * What httpHandler does to a request before the operation sees it: header names in lower case,
 * the JSON body checked (media type, UTF-8, size, syntax) and parsed (jsonBody: the guards, then
 * middy's JSON body parser), and the query string held to the parameters the operation takes
 * (strictQuery).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLambdaContext } from '../../infra/local/events.ts';
import type { OperationCode } from '../../shared/http/handler.ts';
import { jsonBody, MAX_BODY_BYTES } from '../../shared/http/json-body.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import { authorizedEvent, invoke } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { httpHandler } from '../support/in-memory-http-handler.ts';

const context = createLambdaContext('middleware-test', 'req-middleware');

/** A POST event with a body; `contentType: null` sends no Content-Type header. */
function postEvent(
  body: string | null,
  contentType: string | null = 'application/json',
  extra: { isBase64Encoded?: boolean } = {},
): APIGatewayProxyEvent {
  const event = authorizedEvent({
    method: 'POST',
    resource: '/things',
    path: '/things',
    headers: contentType === null ? {} : { 'Content-Type': contentType },
    body,
  });
  return { ...event, ...extra };
}

/** A JSON-body operation that answers 200 with the body it received after parsing. */
const echo = httpHandler(async (event) => jsonResponse(200, { received: event.body }), {
  body: jsonBody(),
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('httpHandler', () => {
  it('gives the operation lower-case header names', async () => {
    const seen = vi.fn<OperationCode>(async () => jsonResponse(200, {}));
    const handler = httpHandler(seen);

    await invoke(
      handler,
      authorizedEvent({
        method: 'GET',
        resource: '/x',
        path: '/x',
        headers: { 'X-Request-Thing': 'a', Accept: 'application/json' },
      }),
      context,
    );

    expect(seen.mock.calls[0]?.[0].headers).toMatchObject({
      'x-request-thing': 'a',
      accept: 'application/json',
    });
  });
});

describe('jsonBody: the guards and the JSON body parser', () => {
  it('passes the parsed body to the operation', async () => {
    const response = await invoke(echo, postEvent('{"name":"Rex","tags":["a"]}'), context);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ received: { name: 'Rex', tags: ['a'] } });
  });

  it('accepts application/json with parameters and a UTF-8 charset, in any case', async () => {
    for (const contentType of [
      'application/json; charset=utf-8',
      'application/json;charset=UTF-8',
      'application/json ; charset=utf-8',
      'application/json; charset="utf-8"',
      'Application/JSON',
    ]) {
      const response = await invoke(echo, postEvent('{"a":1}', contentType), context);
      expect(response.statusCode, contentType).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ received: { a: 1 } });
    }
  });

  it('answers 415 unsupported_media_type for a Content-Type other than JSON', async () => {
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/jsonx',
      'text/json',
      'application/json-patch',
      'application/merge-patch+json',
      'application/vnd.petstore.v1+json',
      '',
    ]) {
      const response = await invoke(echo, postEvent('{"a":1}', contentType), context);
      expect(response, contentType).toEqual(
        errorResponse(
          415,
          'unsupported_media_type',
          contentType
            ? `Content-Type must be application/json, not "${contentType}".`
            : 'Content-Type must be application/json, not missing.',
        ),
      );
    }
  });

  it('answers 415 for a charset other than UTF-8, naming it', async () => {
    for (const charset of ['iso-8859-1', 'utf-16', 'UTF8', '']) {
      const response = await invoke(
        echo,
        postEvent('{"a":1}', `application/json; charset=${charset}`),
        context,
      );
      expect(response, charset).toEqual(
        errorResponse(
          415,
          'unsupported_media_type',
          `Content-Type charset must be utf-8, not "${charset}".`,
        ),
      );
    }
  });

  it('answers 400 invalid_json for bytes that are not UTF-8, and never passes on U+FFFD', async () => {
    const operation = vi.fn<OperationCode>(async () => jsonResponse(200, {}));
    const handler = httpHandler(operation, { body: jsonBody() });
    const bodies = [
      Buffer.from([...Buffer.from('{"name":"R'), 0xff, 0xfe, ...Buffer.from('x"}')]),
      Buffer.from([...Buffer.from('{"name":"'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]),
      Buffer.from([...Buffer.from('{"name":"'), 0xc3, ...Buffer.from('"}')]),
    ];
    for (const bytes of bodies) {
      const response = await invoke(
        handler,
        postEvent(bytes.toString('base64'), 'application/json', { isBase64Encoded: true }),
        context,
      );
      expect(response, bytes.toString('hex')).toEqual(
        errorResponse(400, 'invalid_json', 'body: is not valid UTF-8'),
      );
    }
    expect(operation).not.toHaveBeenCalled();
  });

  it('answers 415 when the Content-Type header is missing', async () => {
    const response = await invoke(echo, postEvent('{"a":1}', null), context);
    expect(response).toEqual(
      errorResponse(
        415,
        'unsupported_media_type',
        'Content-Type must be application/json, not missing.',
      ),
    );
  });

  it('answers 400 invalid_json for an empty or missing body', async () => {
    for (const body of ['', null]) {
      const response = await invoke(echo, postEvent(body), context);
      expect(response).toEqual(
        errorResponse(400, 'invalid_json', 'body: is required and must be a JSON object'),
      );
    }
  });

  it('answers 400 invalid_json for malformed JSON', async () => {
    for (const body of ['{', '{"a":1,}', "{'a':1}", 'Rex', '   ', '{"a":1}{"b":2}']) {
      const response = await invoke(echo, postEvent(body), context);
      expect(response, body).toEqual(
        errorResponse(400, 'invalid_json', 'body: is empty or not valid JSON'),
      );
    }
  });

  it('passes a body of exactly 16 KiB and answers 413 payload_too_large one byte over', async () => {
    const exact = jsonOfBytes(MAX_BODY_BYTES);
    expect(Buffer.byteLength(exact)).toBe(16_384);
    expect((await invoke(echo, postEvent(exact), context)).statusCode).toBe(200);

    const response = await invoke(echo, postEvent(jsonOfBytes(MAX_BODY_BYTES + 1)), context);
    expect(response).toEqual(
      errorResponse(413, 'payload_too_large', 'body: is 16385 bytes; the limit is 16384 bytes.'),
    );
  });

  it('counts UTF-8 bytes, not characters, against the size limit', async () => {
    // 8,192 two-byte characters: 16,388 bytes with the quotes, but only 8,194 UTF-16 units.
    const body = JSON.stringify('é'.repeat(8_192));
    expect(body.length).toBeLessThan(MAX_BODY_BYTES);
    const response = await invoke(echo, postEvent(body), context);
    expect(response.statusCode).toBe(413);
  });

  it('decodes a base64-encoded body and measures its decoded size', async () => {
    const encoded = (json: string) => Buffer.from(json, 'utf8').toString('base64');

    const small = await invoke(
      echo,
      postEvent(encoded('{"name":"Rex 🐶"}'), 'application/json', { isBase64Encoded: true }),
      context,
    );
    expect(JSON.parse(small.body)).toEqual({ received: { name: 'Rex 🐶' } });

    // The base64 text of exactly 16 KiB is longer than 16 KiB; only the decoded bytes count.
    const exact = encoded(jsonOfBytes(MAX_BODY_BYTES));
    expect(exact.length).toBeGreaterThan(MAX_BODY_BYTES);
    const atLimit = await invoke(
      echo,
      postEvent(exact, 'application/json', { isBase64Encoded: true }),
      context,
    );
    expect(atLimit.statusCode).toBe(200);

    const over = encoded(jsonOfBytes(MAX_BODY_BYTES + 1));
    const tooLarge = await invoke(
      echo,
      postEvent(over, 'application/json', { isBase64Encoded: true }),
      context,
    );
    expect(tooLarge.statusCode).toBe(413);
  });
});

/** A JSON object `{"pad":"xxx…"}` of exactly `bytes` UTF-8 bytes. */
function jsonOfBytes(bytes: number): string {
  const overhead = '{"pad":""}'.length;
  return JSON.stringify({ pad: 'x'.repeat(bytes - overhead) });
}

describe('strictQuery', () => {
  const ok = httpHandler(async () => jsonResponse(200, {}), { queryParameters: ['limit'] });
  const noQuery = httpHandler(async () => jsonResponse(200, {}));
  const get = (query: string) =>
    authorizedEvent({
      method: 'GET',
      resource: '/x',
      path: '/x',
      query: new URLSearchParams(query),
    });

  it('passes the parameters an operation takes, once each', async () => {
    expect((await invoke(ok, get('limit=5'), context)).statusCode).toBe(200);
    expect((await invoke(noQuery, get(''), context)).statusCode).toBe(200);
  });

  it('answers 400 invalid_parameter for a parameter the operation does not take', async () => {
    expect(await invoke(ok, get('limit=5&colour=brown'), context)).toEqual(
      errorResponse(400, 'invalid_parameter', 'colour: is not allowed'),
    );
    expect(await invoke(noQuery, get('limit=5'), context)).toEqual(
      errorResponse(400, 'invalid_parameter', 'limit: is not allowed'),
    );
  });

  it('answers 400 invalid_parameter naming a parameter given more than once', async () => {
    expect(await invoke(ok, get('limit=1&limit=2'), context)).toEqual(
      errorResponse(400, 'invalid_parameter', 'limit: is given 2 times; give it once'),
    );
  });
});
