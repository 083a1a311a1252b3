/**
 * The local gateway over HTTP: routing, the authorizer as API Gateway calls and caches it, the
 * usage plans (the edge backstop), the gateway responses, and the events the functions receive.
 */
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { gatewayResponse } from '../../infra/gateway-responses.ts';
import { createTables } from '../../infra/local/create-tables.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import type { ApiKeyRecord } from '../../shared/keys/key-records.ts';
import { generateToken, hashToken } from '../../shared/keys/token.ts';
import type { Pet } from '../../shared/pets/schemas.ts';
import type { RequestLimits } from '../../shared/plans.ts';
import { seedKey, TEST_CONTEXT } from '../support/test-keys.ts';

const keys = createKeyService();
let gateway: LocalGateway;
let token: string;

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  ({ token } = await seedKey({ plan: 'free' }));
});
afterAll(() => gateway.close());

function call(path: string, init: RequestInit = {}, base = gateway.url): Promise<Response> {
  return fetch(`${base}${path}`, init);
}

function bearer(value: string): RequestInit {
  return { headers: { Authorization: `Bearer ${value}` } };
}

const UNAUTHORIZED = gatewayResponse('UNAUTHORIZED');

async function expectUnauthorized(response: Response): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer');
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(await response.json()).toEqual(UNAUTHORIZED.body);
}

describe('authentication', () => {
  it('answers 401 when the Authorization header is missing', async () => {
    await expectUnauthorized(await call('/pets'));
  });

  it('answers 401 when the scheme is Basic', async () => {
    const response = await call('/pets', { headers: { Authorization: `Basic ${token}` } });
    await expectUnauthorized(response);
  });

  it('answers 401 when the token has no scheme', async () => {
    await expectUnauthorized(await call('/pets', { headers: { Authorization: token } }));
  });

  it('answers 401 when the key is unknown', async () => {
    await expectUnauthorized(await call('/pets', bearer(generateToken())));
  });

  it('answers 401 when the key is revoked', async () => {
    const { record, token: revoked } = await seedKey({ plan: 'pro' });
    await keys.revokeKey(record.keyId, TEST_CONTEXT);

    await expectUnauthorized(await call('/pets', bearer(revoked)));
  });

  it('accepts the scheme in lower case', async () => {
    const response = await call('/pets', { headers: { Authorization: `bearer ${token}` } });

    expect(response.status).toBe(200);
    expect(await response.json()).toBeInstanceOf(Array);
  });
});

describe('authorizer cache', () => {
  it('keeps accepting a key revoked after a successful call while its result is cached', async () => {
    const { record, token: cachedToken } = await seedKey({ plan: 'free' });
    expect((await call('/pets', bearer(cachedToken))).status).toBe(200);

    await keys.revokeKey(record.keyId, TEST_CONTEXT);

    expect((await call('/pets', bearer(cachedToken))).status).toBe(200);
  });

  it('refuses a key revoked after a successful call when the cache is off', async () => {
    const uncached = await startGateway({ port: 0, authorizerCacheTtlSeconds: 0 });
    try {
      const { record, token: uncachedToken } = await seedKey({ plan: 'free' });
      expect((await call('/pets', bearer(uncachedToken), uncached.url)).status).toBe(200);

      await keys.revokeKey(record.keyId, TEST_CONTEXT);

      await expectUnauthorized(await call('/pets', bearer(uncachedToken), uncached.url));
    } finally {
      await uncached.close();
    }
  });
});

describe('routing', () => {
  const NOT_FOUND = gatewayResponse('MISSING_AUTHENTICATION_TOKEN').body;

  it('answers 404 not_found for an unknown path under the stage', async () => {
    const response = await call('/nope', bearer(token));

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual(NOT_FOUND);
  });

  it('answers 404 not_found for a path outside the stage', async () => {
    const response = await fetch(`${gateway.url.replace(/\/v1$/, '')}/pets`, bearer(token));

    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(NOT_FOUND);
  });

  it('answers 404 not_found for a path parameter left empty', async () => {
    const response = await call('/pets/', bearer(token));

    expect(response.status).toBe(404);
  });

  it('answers 405 with Allow when a known path is called with another method', async () => {
    const response = await call('/pets', { method: 'DELETE', ...bearer(token) });

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect(await response.json()).toEqual({
      code: 'method_not_allowed',
      message: 'This path accepts only: GET, POST.',
      status: 405,
    });
  });

  it('answers 413 payload_too_large for a body over 10 MB, before the authorizer', async () => {
    const response = await call('/pets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: 'x'.repeat(10 * 1024 * 1024 + 1),
    });

    expect(response.status).toBe(413);
    expect(await response.json()).toEqual(gatewayResponse('REQUEST_TOO_LARGE').body);
  });

  it('adds x-amzn-RequestId to function and gateway answers alike', async () => {
    const answers = [await call('/pets', bearer(token)), await call('/nope')];

    for (const response of answers) {
      expect(response.headers.get('x-amzn-requestid')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('integration with the functions', () => {
  async function createPet(body: unknown): Promise<Response> {
    return call('/pets', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  it('passes the body and headers to createPet and copies its status and headers back', async () => {
    const response = await createPet({ name: 'Rex "the dog" 🐕', categoryId: 3 });

    expect(response.status).toBe(201);
    const pet = (await response.json()) as Pet;
    expect(pet).toEqual({
      id: expect.any(Number),
      name: 'Rex "the dog" 🐕',
      categoryId: 3,
      status: 'available',
    });
    expect(response.headers.get('location')).toBe(`/v1/pets/${pet.id}`);
  });

  it('passes URL-decoded path parameters to getPet', async () => {
    const pet = (await (await createPet({ name: 'Tom', categoryId: 1 })).json()) as Pet;
    const encodedId = [...String(pet.id)].map((digit) => `%3${digit}`).join('');

    const response = await call(`/pets/${encodedId}`, bearer(token));

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(pet);
    expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
  });

  it('passes query parameters to listPets', async () => {
    const sold = await (await createPet({ name: 'Kim', categoryId: 2, status: 'sold' })).json();

    const response = await call('/pets?status=sold&limit=5', bearer(token));

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([sold]);
  });

  it('treats headers named like Object members as ordinary headers', async () => {
    const response = await call('/pets', {
      headers: {
        Authorization: `Bearer ${token}`,
        constructor: 'a',
        __proto__: 'b',
        toString: 'c',
      },
    });

    expect(response.status).toBe(200);
  });

  it('passes the last value of a repeated query parameter, as API Gateway does', async () => {
    const response = await call('/pets?status=available&status=bogus', bearer(token));

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_parameter' });
  });
});

describe('usage plans', () => {
  /** The clock of `edge`'s gateway, epoch ms; it stands still unless a test moves it. */
  let clockMs = Date.UTC(2026, 10, 21, 12, 0, 0);
  let edge: LocalGateway;

  beforeAll(async () => {
    edge = await startGateway({ port: 0, now: () => clockMs });
  });
  afterAll(() => edge.close());

  /** Issues an Enterprise key with its own limits, as the keys command stores one. */
  async function issueEnterpriseKey(limits: RequestLimits): Promise<string> {
    const enterpriseToken = generateToken();
    const record: ApiKeyRecord = {
      keyHash: hashToken(enterpriseToken),
      keyId: `key_${hashToken(enterpriseToken).slice(0, 16)}`,
      plan: 'enterprise',
      ...limits,
      scopes: ['pets:read', 'pets:write'],
      usageIdentifier: hashToken(`usage ${enterpriseToken}`),
      createdAt: new Date().toISOString(),
    };
    const client = createDocumentClient();
    try {
      await client.send(
        new PutCommand({ TableName: process.env[KEYS_TABLE.envVar], Item: record }),
      );
    } finally {
      client.destroy();
    }
    return enterpriseToken;
  }

  async function expectGatewayResponse(
    response: Response,
    type: 'THROTTLED' | 'QUOTA_EXCEEDED',
  ): Promise<void> {
    const expected = gatewayResponse(type);
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('retry-after')).toBe(expected.headers['Retry-After']);
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await response.json()).toEqual(expected.body);
  }

  it('answers THROTTLED (429 rate_limited, Retry-After) when a key sends more than its burst at once', async () => {
    // GIVEN a key of 1 request per minute and per day: usage plan burst 2, quota 2
    const enterpriseToken = await issueEnterpriseKey({ perMinute: 1, perDay: 1 });

    // WHEN it sends 3 requests within one instant of the gateway's clock
    const first = await call('/pets', bearer(enterpriseToken), edge.url);
    await call('/pets', bearer(enterpriseToken), edge.url);
    const third = await call('/pets', bearer(enterpriseToken), edge.url);

    // THEN the first reaches the function, and the third gets the gateway response, not the
    // function's own 429
    expect(first.status).toBe(200);
    await expectGatewayResponse(third, 'THROTTLED');
  });

  it('answers QUOTA_EXCEEDED (429 quota_exceeded) when the daily quota is used up, throttled requests not counted', async () => {
    // GIVEN a key (burst 2, quota 2) whose 2 requests passed the usage plan (the function refused
    // the second: 1 per day) and whose next 2 were throttled
    const enterpriseToken = await issueEnterpriseKey({ perMinute: 1, perDay: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push((await call('/pets', bearer(enterpriseToken), edge.url)).status);
    }

    // WHEN its bucket has refilled, later the same UTC day
    clockMs += 2 * 60_000;
    const response = await call('/pets', bearer(enterpriseToken), edge.url);

    // THEN the quota refuses it
    expect(statuses).toEqual([200, 429, 429, 429]);
    await expectGatewayResponse(response, 'QUOTA_EXCEEDED');
  });
});

// Last: it deletes and re-creates this file's keys table.
describe('authorizer failure', () => {
  it('answers 503 service_unavailable with Retry-After when the keys table is gone, and does not cache it', async () => {
    const client = createDocumentClient();
    const neverSeen = bearer(generateToken());
    try {
      await client.send(new DeleteTableCommand({ TableName: process.env[KEYS_TABLE.envVar] }));

      const response = await call('/pets', neverSeen);

      expect(response.status).toBe(503);
      expect(response.headers.get('Retry-After')).toBe('5');
      expect(await response.json()).toEqual(gatewayResponse('AUTHORIZER_FAILURE').body);
    } finally {
      await createTables(client, (table) => process.env[table.envVar] ?? '');
      client.destroy();
    }
    await expectUnauthorized(await call('/pets', neverSeen));
  });
});

describe("handlers given for operations (the benches' floors)", () => {
  it("calls the given handler instead of the route's entry, behind the authorizer", async () => {
    const seen: unknown[] = [];
    // Its own key: a test above empties the keys table.
    const { token: ownToken } = await seedKey({ plan: 'free' });
    const own = await startGateway({
      port: 0,
      handlers: {
        getPet: async (event) => {
          seen.push((event as { pathParameters: unknown }).pathParameters);
          return { statusCode: 200, headers: {}, body: '{"own":true}' };
        },
      },
    });
    try {
      const response = await call('/pets/7', bearer(ownToken), own.url);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ own: true });
      expect((await call('/pets/7', {}, own.url)).status).toBe(401);
      expect(seen).toEqual([{ petId: '7' }]);
    } finally {
      await own.close();
    }
  });
});
