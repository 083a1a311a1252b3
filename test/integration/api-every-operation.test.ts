/**
 * What holds for every operation end to end over the local gateway (test/support/local-api.ts):
 * 401 without a valid bearer key, 404 and 405 for what no route serves, strict input (unknown or
 * repeated query parameters, bytes that are not UTF-8, other charsets, two Authorization headers),
 * and the check of every answer against docs/openapi.yaml failing when an answer does not conform.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { gatewayResponse } from '../../infra/gateway-responses.ts';
import { ROUTES } from '../../infra/routes.ts';
import { generateToken } from '../../shared/keys/token.ts';
import type { Pet } from '../../shared/pets/schemas.ts';
import { petstoreClient } from '../support/api-client.ts';
import { expectError } from '../support/error-responses.ts';
import {
  api,
  createPet,
  expectPet,
  gateway,
  send,
  serveLocalApi,
  token,
} from '../support/local-api.ts';
import { expectConformingResponse } from '../support/openapi-conformance.ts';
import { allowedMethods } from '../support/openapi-document.ts';

serveLocalApi();

describe('authentication', () => {
  const UNAUTHORIZED = gatewayResponse('UNAUTHORIZED');

  /** Each route's request (a row of infra/routes.ts), its path parameters 1. */
  const operations = ROUTES.map(
    ({ operationId, method, path }) => [operationId, method, path.replace('{petId}', '1')] as const,
  );

  /** The Authorization headers the gateway refuses. */
  const authorizations: [string, () => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['the Basic scheme', () => ({ Authorization: `Basic ${token}` })],
    ['an unknown key', () => ({ Authorization: `Bearer ${generateToken()}` })],
  ];

  it.each(
    operations.flatMap(([operationId, method, path]) =>
      authorizations.map(([sent, headers]) => [operationId, sent, method, path, headers] as const),
    ),
  )(
    'answers %s 401 unauthorized with WWW-Authenticate when sent %s',
    async (_, __, method, path, headers) => {
      const { response, body } = await send(method, path, { headers: headers() });

      expectError(response, body, { status: 401, code: 'unauthorized' });
      expect(body).toEqual(UNAUTHORIZED.body);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
    },
  );
});

describe('routes', () => {
  it('answers 404 not_found for a path no route matches', async () => {
    const { response, body } = await send('GET', '/owners');

    expectError(response, body, { status: 404, code: 'not_found' });
  });

  it.each([
    ['DELETE', '/pets', allowedMethods('/pets')],
    ['PUT', '/pets/1', allowedMethods('/pets/{petId}')],
  ])('answers %s %s 405 method_not_allowed with Allow: %s', async (method, path, allow) => {
    const { response, body } = await send(method, path);

    expectError(response, body, { status: 405, code: 'method_not_allowed' });
    expect(response.headers.get('allow')).toBe(allow);
  });
});

describe('conformance to docs/openapi.yaml', () => {
  it('rejects a typed-client call whose answer has a status the document does not list', async () => {
    const client = petstoreClient(gateway.url, token);
    // Runs before the conformance check (openapi-fetch runs onResponse last-added first).
    client.use({ onResponse: () => Response.json({ code: 'teapot' }, { status: 418 }) });

    await expect(client.GET('/pets')).rejects.toThrow(
      'GET /pets 418: the status is not documented for the operation',
    );
  });

  /** A real 201 of createPet, changed by `change`, then checked against the document. */
  async function checkCreated(
    change: { body?: (pet: Pet) => unknown; headers?: (headers: Headers) => void } = {},
  ): Promise<void> {
    const { data, response } = await api.POST('/pets', { body: { name: 'Rex', categoryId: 1 } });
    const headers = new Headers(response.headers);
    change.headers?.(headers);
    const body = change.body ? change.body(expectPet(response, data)) : data;
    const changed = new Response(null, { status: response.status, headers });
    expectConformingResponse({ method: 'POST', path: '/pets' }, changed, body);
  }

  it('accepts a createPet 201 as the API sent it', async () => {
    await expect(checkCreated()).resolves.toBeUndefined();
  });

  it.each([
    [
      'a body with an unknown field',
      { body: (pet: Pet) => ({ ...pet, colour: 'brown' }) },
      'body must NOT have additional properties',
    ],
    [
      'a body without status',
      { body: ({ status: _, ...pet }: Pet) => pet },
      "body must have required property 'status'",
    ],
    [
      'no Location header',
      { headers: (headers: Headers) => headers.delete('location') },
      'the required header Location is missing',
    ],
    [
      'a Location outside /v1/pets',
      { headers: (headers: Headers) => headers.set('location', '/pets/1') },
      'Location must match pattern',
    ],
    [
      'the Content-Type text/plain',
      { headers: (headers: Headers) => headers.set('content-type', 'text/plain') },
      'the Content-Type is not a documented media type',
    ],
  ])('rejects a createPet 201 with %s', async (_, change, failure) => {
    const checked = checkCreated(change);

    await expect(checked).rejects.toThrow(/^POST \/pets 201: /);
    await expect(checked).rejects.toThrow(failure);
  });
});

describe('strict input on every operation', () => {
  it('answers 400 invalid_parameter naming a query parameter that createPet or getPet does not take', async () => {
    const pet = await createPet('Strict');
    const create = await send('POST', '/pets?colour=brown', {
      body: '{"name":"Rex","categoryId":1}',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    });
    const get = await send('GET', `/pets/${pet.id}?colour=brown`);

    expectError(create.response, create.body, {
      status: 400,
      code: 'invalid_parameter',
      naming: 'colour',
    });
    expectError(get.response, get.body, {
      status: 400,
      code: 'invalid_parameter',
      naming: 'colour',
    });
  });

  it('answers 400 invalid_parameter naming a query parameter given twice', async () => {
    const { response, body } = await send('GET', '/pets?limit=1&limit=2');
    expectError(response, body, { status: 400, code: 'invalid_parameter', naming: 'limit' });
    expect((body as { message: string }).message).toBe('limit: is given 2 times; give it once');
  });

  it('answers 400 invalid_json for a body that is not UTF-8, and stores nothing', async () => {
    const marker = `Bytes${randomUUID()}`;
    const bytes = Buffer.concat([
      Buffer.from(`{"name":"${marker}`),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","categoryId":1}'),
    ]);
    const { response, body } = await send('POST', '/pets', {
      body: bytes,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    });

    expectError(response, body, { status: 400, code: 'invalid_json', naming: 'body' });
    const { data } = await api.GET('/pets', { params: { query: { limit: 100 } } });
    expect(data?.some((pet) => pet.name.startsWith(marker))).toBe(false);
  });

  it('answers 415 for a charset other than UTF-8 and for +json media types', async () => {
    for (const contentType of [
      'application/json; charset=iso-8859-1',
      'application/merge-patch+json',
    ]) {
      const { response, body } = await send('POST', '/pets', {
        body: '{"name":"Rex","categoryId":1}',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': contentType },
      });
      expectError(response, body, { status: 415, code: 'unsupported_media_type' });
    }
  });

  it('answers 401 to two Authorization headers, even when one of them holds a valid key', async () => {
    for (const values of [
      [`Bearer ${token}`, 'Bearer bogus'],
      ['Bearer bogus', `Bearer ${token}`],
    ]) {
      const status = await new Promise<number | undefined>((answered, failed) => {
        const request = httpRequest(`${gateway.url}/pets`, { headers: { Authorization: values } });
        request.on('response', (response) => {
          response.resume();
          answered(response.statusCode);
        });
        request.on('error', failed);
        request.end();
      });
      expect(status, values.join(' + ')).toBe(401);
    }
  });
});
