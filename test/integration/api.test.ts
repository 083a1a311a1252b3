/**
 * The API end to end: the typed client generated from docs/openapi.yaml, over HTTP, against the
 * local gateway, the authorizer and the function handlers on DynamoDB Local.
 * Inputs the typed client cannot express are sent with plain `fetch`. Every response, of
 * the typed client or of `fetch`, is also checked against docs/openapi.yaml
 * (test/support/openapi-conformance.ts).
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayResponse } from '../../infra/gateway-responses.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { MAX_BODY_BYTES } from '../../shared/http/json-body.ts';
import { GET_PET_DEPRECATION_HEADERS } from '../../shared/pets/deprecation.ts';
import {
  PAGE_LIMIT,
  PET_NAME_MAX_LENGTH,
  PET_STATUSES,
  type Pet,
  PetSchema,
  type PetStatus,
} from '../../shared/pets/schemas.ts';
import { issueToken, type PetstoreClient, petstoreClient } from '../support/api-client.ts';
import { expectError } from '../support/error-responses.ts';
import { expectConformingResponse, readBody } from '../support/openapi-conformance.ts';

let gateway: LocalGateway;
let token: string;
let api: PetstoreClient;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  token = await issueToken('business');
  api = petstoreClient(gateway.url, token);
});
afterAll(() => gateway?.close());

/**
 * A request the typed client cannot express, with the key unless `headers` replace it; its answer
 * must conform to docs/openapi.yaml.
 */
async function send(
  method: string,
  path: string,
  init: { body?: RequestInit['body']; headers?: Record<string, string> } = {},
): Promise<{ response: Response; body: unknown }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    body: init.body,
    headers: init.headers ?? { Authorization: `Bearer ${token}` },
  });
  const body = await readBody(response);
  expectConformingResponse({ method, path }, response, body);
  return { response, body };
}

/** POSTs `body` (text) to /pets as `application/json` with the key. */
function postJson(body: string): Promise<{ response: Response; body: unknown }> {
  return send('POST', '/pets', {
    body,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
  });
}

/** Asserts a Pet answer: `application/json` and a body that is exactly a Pet. */
function expectPet(response: Response, body: unknown): Pet {
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(v.is(PetSchema, body)).toBe(true);
  return body as Pet;
}

function expectDeprecationHeaders(response: Response): void {
  for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) {
    expect(response.headers.get(name)).toBe(value);
  }
}

async function createPet(name: string, status?: PetStatus): Promise<Pet> {
  const { data, response } = await api.POST('/pets', { body: { name, categoryId: 1, status } });
  expect(response.status).toBe(201);
  return expectPet(response, data);
}

describe('listPets (GET /pets)', () => {
  /** Pets created for this block, more than one default page, every status represented. */
  const created: Pet[] = [];

  beforeAll(async () => {
    for (let i = 0; i < PAGE_LIMIT.default + 5; i++) {
      created.push(await createPet(`List pet ${i}`, PET_STATUSES[i % PET_STATUSES.length]));
    }
  });

  it('answers 200 with 20 pets when limit is omitted and more exist', async () => {
    const { data, response } = await api.GET('/pets');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(data).toHaveLength(PAGE_LIMIT.default);
    for (const pet of data ?? []) expect(v.is(PetSchema, pet)).toBe(true);
  });

  it('answers 200 with at most limit pets', async () => {
    const three = await api.GET('/pets', { params: { query: { limit: 3 } } });
    const all = await api.GET('/pets', { params: { query: { limit: PAGE_LIMIT.max } } });

    expect(three.response.status).toBe(200);
    expect(three.data).toHaveLength(3);
    expect(all.response.status).toBe(200);
    expect(all.data?.length).toBeGreaterThanOrEqual(created.length);
    expect(all.data?.length).toBeLessThanOrEqual(PAGE_LIMIT.max);
  });

  it.each(PET_STATUSES)('answers only %s pets, in ascending id order', async (status) => {
    const { data, response } = await api.GET('/pets', {
      params: { query: { status, limit: PAGE_LIMIT.max } },
    });

    expect(response.status).toBe(200);
    const ids = (data ?? []).map((pet) => pet.id);
    expect(data?.every((pet) => pet.status === status)).toBe(true);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const createdWithStatus = created.filter((pet) => pet.status === status);
    expect(data).toEqual(expect.arrayContaining(createdWithStatus));
  });

  it('answers the lowest ids of the status when limit cuts the list', async () => {
    const { data } = await api.GET('/pets', { params: { query: { status: 'sold', limit: 2 } } });
    const { data: allSold } = await api.GET('/pets', {
      params: { query: { status: 'sold', limit: PAGE_LIMIT.max } },
    });

    expect(data).toEqual(allSold?.slice(0, 2));
    expect(data).toHaveLength(2);
  });

  it.each(['0', '101', '1.5', '-1', 'abc', ''])(
    'answers 400 invalid_parameter naming limit when limit is %j',
    async (limit) => {
      const { response, body } = await send('GET', `/pets?limit=${encodeURIComponent(limit)}`);

      expectError(response, body, { status: 400, code: 'invalid_parameter', naming: 'limit' });
    },
  );

  it.each(['Available', 'SOLD', '', 'lost'])(
    'answers 400 invalid_parameter naming status when status is %j',
    async (status) => {
      const { response, body } = await send('GET', `/pets?status=${encodeURIComponent(status)}`);

      expectError(response, body, { status: 400, code: 'invalid_parameter', naming: 'status' });
    },
  );

  it.each(['colour', 'constructor', '__proto__', 'toString'])(
    'answers 400 invalid_parameter naming the unknown query parameter %j',
    async (name) => {
      const { response, body } = await send('GET', `/pets?${name}=1`);

      expectError(response, body, { status: 400, code: 'invalid_parameter', naming: name });
    },
  );
});

describe('createPet (POST /pets)', () => {
  it('answers 201 with the pet, its Location and the status available by default', async () => {
    const { data, response } = await api.POST('/pets', { body: { name: 'Rex', categoryId: 7 } });

    expect(response.status).toBe(201);
    const pet = expectPet(response, data);
    expect(pet).toEqual({ id: pet.id, name: 'Rex', categoryId: 7, status: 'available' });
    expect(response.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
    const fetched = await api.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
    expect(fetched.data).toEqual(pet);
  });

  it('keeps the status and the largest categoryId sent', async () => {
    const body = { name: 'Mia', categoryId: Number.MAX_SAFE_INTEGER, status: 'pending' } as const;
    const { data, response } = await api.POST('/pets', { body });

    expect(response.status).toBe(201);
    expect(data).toMatchObject(body);
  });

  it.each([
    ['accents', 'Señor Bigotes'],
    ['quotes, a backslash and markup', `O'Brien "the cat" \\ </script>`],
    ['surrounding spaces', '  padded name  '],
    ['CJK characters', '名前はまだ無い'],
    ['emoji with a zero-width joiner', '🐈‍⬛ Mia 🐾'],
    [`${PET_NAME_MAX_LENGTH} emoji (the longest name)`, '🐈'.repeat(PET_NAME_MAX_LENGTH)],
  ])('stores a name with %s exactly as sent', async (_, name) => {
    const pet = await createPet(name);
    const { data } = await api.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });

    expect(pet.name).toBe(name);
    expect(data?.name).toBe(name);
  });

  it('answers 400 invalid_body naming name when it has 101 code points', async () => {
    const name = `${'🐈'.repeat(PET_NAME_MAX_LENGTH)}a`;
    const { error, response } = await api.POST('/pets', { body: { name, categoryId: 1 } });

    expectError(response, error, { status: 400, code: 'invalid_body', naming: 'name' });
  });

  it.each(['', ' ', ' \t\n ', '\u00a0\u3000'])(
    'answers 400 invalid_body naming name when it is %j',
    async (name) => {
      const { error, response } = await api.POST('/pets', { body: { name, categoryId: 1 } });

      expectError(response, error, { status: 400, code: 'invalid_body', naming: 'name' });
    },
  );

  it.each([0, -1, 1.5, 2 ** 53])(
    'answers 400 invalid_body naming categoryId when it is %s',
    async (categoryId) => {
      const { error, response } = await api.POST('/pets', { body: { name: 'Rex', categoryId } });

      expectError(response, error, { status: 400, code: 'invalid_body', naming: 'categoryId' });
    },
  );

  it.each([
    ['a string', '{"name":"Rex","categoryId":"5"}'],
    ['missing', '{"name":"Rex"}'],
  ])('answers 400 invalid_body naming categoryId when it is %s', async (_, json) => {
    const { response, body } = await postJson(json);

    expectError(response, body, { status: 400, code: 'invalid_body', naming: 'categoryId' });
  });

  it('answers 400 invalid_body naming status when it is not lower case', async () => {
    const { response, body } = await postJson('{"name":"Rex","categoryId":1,"status":"Sold"}');

    expectError(response, body, { status: 400, code: 'invalid_body', naming: 'status' });
  });

  it('answers 400 invalid_body naming an unknown field', async () => {
    const { response, body } = await postJson('{"name":"Rex","categoryId":1,"colour":"brown"}');

    expectError(response, body, { status: 400, code: 'invalid_body', naming: 'colour' });
  });

  it.each([
    ['malformed JSON', '{"name":"Rex",', 'invalid_json'],
    ['an empty body', '', 'invalid_json'],
    ['null', 'null', 'invalid_body'],
    ['a string', '"Rex"', 'invalid_body'],
    ['an array', '[{"name":"Rex","categoryId":1}]', 'invalid_body'],
  ] as const)('answers 400 naming the body when it is %s', async (_, json, code) => {
    const { response, body } = await postJson(json);

    expectError(response, body, { status: 400, code, naming: 'body' });
  });

  it('answers 415 unsupported_media_type when the Content-Type is text/plain', async () => {
    const { response, body } = await send('POST', '/pets', {
      body: '{"name":"Rex","categoryId":1}',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
    });

    expectError(response, body, { status: 415, code: 'unsupported_media_type' });
  });

  it('answers 415 unsupported_media_type when the Content-Type is missing', async () => {
    // fetch labels a string body text/plain; bytes go without a Content-Type.
    const { response, body } = await send('POST', '/pets', {
      body: new TextEncoder().encode('{"name":"Rex","categoryId":1}'),
    });

    expectError(response, body, { status: 415, code: 'unsupported_media_type' });
  });

  it('accepts a body of exactly 16 KiB', async () => {
    const json = '{"name":"Rex","categoryId":1}';
    const { response } = await postJson(json.padEnd(MAX_BODY_BYTES, ' '));

    expect(response.status).toBe(201);
  });

  it('answers 413 payload_too_large when the body is over 16 KiB', async () => {
    const json = '{"name":"Rex","categoryId":1}';
    const { response, body } = await postJson(json.padEnd(MAX_BODY_BYTES + 1, ' '));

    expectError(response, body, { status: 413, code: 'payload_too_large', naming: 'body' });
  });

  it('gives 20 concurrent creates 20 distinct ids, each fetchable', async () => {
    const pets = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createPet(`Concurrent pet ${i}`)),
    );

    expect(new Set(pets.map((pet) => pet.id)).size).toBe(20);
    for (const pet of pets) {
      const { data } = await api.GET('/pets/{petId}', { params: { path: { petId: pet.id } } });
      expect(data).toEqual(pet);
    }
  });
});

describe('getPet (GET /pets/{petId}, deprecated)', () => {
  it('answers 200 with the pet and the deprecation headers', async () => {
    const pet = await createPet('Fetched pet', 'sold');

    const { data, response } = await api.GET('/pets/{petId}', {
      params: { path: { petId: pet.id } },
    });

    expect(response.status).toBe(200);
    expect(expectPet(response, data)).toEqual(pet);
    expectDeprecationHeaders(response);
  });

  it('answers 404 pet_not_found with the deprecation headers when no pet has the id', async () => {
    const { error, response } = await api.GET('/pets/{petId}', {
      params: { path: { petId: Number.MAX_SAFE_INTEGER } },
    });

    expectError(response, error, { status: 404, code: 'pet_not_found' });
    expectDeprecationHeaders(response);
  });

  it.each([0, -1, 1.5])(
    'answers 400 invalid_parameter naming petId, with the deprecation headers, when it is %s',
    async (petId) => {
      const { error, response } = await api.GET('/pets/{petId}', { params: { path: { petId } } });

      expectError(response, error, { status: 400, code: 'invalid_parameter', naming: 'petId' });
      expectDeprecationHeaders(response);
    },
  );

  it('answers 400 invalid_parameter naming petId, with the deprecation headers, when it is abc', async () => {
    const { response, body } = await send('GET', '/pets/abc');

    expectError(response, body, { status: 400, code: 'invalid_parameter', naming: 'petId' });
    expectDeprecationHeaders(response);
  });
});

describe('authentication', () => {
  const UNAUTHORIZED = gatewayResponse('UNAUTHORIZED');

  /** One call of each operation, made with `client`. */
  const operations: [
    string,
    (client: PetstoreClient) => Promise<{ response: Response; error?: unknown }>,
  ][] = [
    ['listPets', (client) => client.GET('/pets')],
    ['createPet', (client) => client.POST('/pets', { body: { name: 'Rex', categoryId: 1 } })],
    ['getPet', (client) => client.GET('/pets/{petId}', { params: { path: { petId: 1 } } })],
  ];

  const clients: [string, () => PetstoreClient][] = [
    ['no Authorization header', () => petstoreClient(gateway.url)],
    ['the Basic scheme', () => createBasicClient()],
    ['an unknown key', () => petstoreClient(gateway.url, 'psk_unknownKeyOfNoOne')],
  ];

  function createBasicClient(): PetstoreClient {
    const client = petstoreClient(gateway.url);
    client.use({
      onRequest: ({ request }) => {
        request.headers.set('Authorization', `Basic ${token}`);
        return request;
      },
    });
    return client;
  }

  it.each(
    operations.flatMap(([operationId, call]) =>
      clients.map(([sent, client]) => [operationId, sent, call, client] as const),
    ),
  )(
    'answers %s 401 unauthorized with WWW-Authenticate when sent %s',
    async (_, __, call, client) => {
      const { response, error } = await call(client());

      expectError(response, error, { status: 401, code: 'unauthorized' });
      expect(error).toEqual(UNAUTHORIZED.body);
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
    ['DELETE', '/pets', 'GET, POST'],
    ['PUT', '/pets/1', 'GET'],
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
      [`Bearer ${token}`, 'Bearer psk_bogus'],
      ['Bearer psk_bogus', `Bearer ${token}`],
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

describe('createPet with Idempotency-Key over HTTP', () => {
  it('replays the first 201, its Location included, with Idempotent-Replayed: true', async () => {
    const headers = { 'Idempotency-Key': `"${randomUUID()}"` };
    const body = { name: 'Replayed', categoryId: 3 };
    const first = await api.POST('/pets', { body, params: { header: headers } });
    const repeat = await api.POST('/pets', { body, params: { header: headers } });

    expect(first.response.status).toBe(201);
    expect(repeat.response.status).toBe(201);
    expect(repeat.data).toEqual(first.data);
    expect(repeat.response.headers.get('location')).toBe(first.response.headers.get('location'));
    expect(repeat.response.headers.get('idempotent-replayed')).toBe('true');
    expect(first.response.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    const headers = { 'Idempotency-Key': randomUUID() };
    await api.POST('/pets', {
      body: { name: 'First', categoryId: 1 },
      params: { header: headers },
    });
    const other = await send('POST', '/pets', {
      body: '{"name":"Second","categoryId":1}',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
    });
    expectError(other.response, other.body, { status: 422, code: 'idempotency_key_reused' });
  });

  it('answers 400 invalid_idempotency_key for a key of 256 characters', async () => {
    const { response, body } = await send('POST', '/pets', {
      body: '{"name":"Rex","categoryId":1}',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': 'k'.repeat(256),
      },
    });
    expectError(response, body, {
      status: 400,
      code: 'invalid_idempotency_key',
      naming: 'Idempotency-Key',
    });
  });
});
