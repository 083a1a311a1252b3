/**
 * Scopes over HTTP on the local gateway, which evaluates the authorizer's policy as API Gateway
 * does: a read-only key lists and fetches, and is refused createPet with 403 `insufficient_scope`
 * before any function runs; a scope change reaches requests when the authorizer cache expires.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../infra/routes.ts';
import { earlyInUtcMinute } from '../support/clock.ts';
import { expectConformingResponse, readBody } from '../support/openapi-conformance.ts';
import { seedKey, TEST_CONTEXT } from '../support/test-keys.ts';

const keys = createKeyService();
/** How far the gateway's clock is ahead of the real one, ms: moved to expire its cache. */
let aheadMs = 0;
let gateway: LocalGateway;

beforeAll(async () => {
  gateway = await startGateway({ port: 0, now: () => Date.now() + aheadMs });
});
afterAll(() => gateway.close());

/** A request with a bearer token; its answer must conform to docs/openapi.yaml. */
async function call(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = await readBody(response);
  expectConformingResponse({ method, path }, response, parsed);
  return { response, body: parsed };
}

const REX = { name: 'Rex', categoryId: 1 };

describe('a read-only key (pets:read)', () => {
  it('lists and fetches pets, and is refused createPet with 403 insufficient_scope uncounted', async () => {
    const writer = await seedKey({ plan: 'free' });
    const reader = await seedKey({ plan: 'free', scopes: ['pets:read'] });
    const created = await call(writer.token, 'POST', '/pets', REX);
    const petId = (created.body as { id: number }).id;
    await earlyInUtcMinute(55); // the reader's calls in one minute window, so `remaining` drops by one

    const listed = await call(reader.token, 'GET', '/pets?limit=100');
    const fetched = await call(reader.token, 'GET', `/pets/${petId}`);
    const refused = await call(reader.token, 'POST', '/pets', REX);
    const after = await call(reader.token, 'GET', '/pets?limit=100');

    expect(listed.response.status).toBe(200);
    expect(fetched.response.status).toBe(200);
    expect(fetched.body).toEqual(created.body);
    expect(refused.response.status).toBe(403);
    expect(refused.response.headers.get('www-authenticate')).toBe(
      'Bearer error="insufficient_scope", scope="pets:write"',
    );
    expect(refused.body).toEqual({
      code: 'insufficient_scope',
      message: "This API key's scopes do not cover this operation; it needs the scope pets:write.",
      status: 403,
    });
    // No function ran: no pet, no count of the limiter, none of its headers.
    expect(refused.response.headers.get('x-ratelimit-remaining')).toBeNull();
    expect(after.body).toEqual(listed.body);
    const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));
    expect(remaining(after.response)).toBe(remaining(fetched.response) - 1);
  });

  it('gets createPet once its scopes change, when the authorizer cache expires, and loses it again', async () => {
    const { record, token } = await seedKey({ plan: 'pro', scopes: ['pets:read'] });
    expect((await call(token, 'POST', '/pets', REX)).response.status).toBe(403);

    await keys.setScopes(record.keyId, ['pets:write'], TEST_CONTEXT);
    // The cached policy stands until its TTL runs out, as API Gateway's does.
    expect((await call(token, 'POST', '/pets', REX)).response.status).toBe(403);
    aheadMs += (AUTHORIZER_CACHE_TTL_SECONDS + 1) * 1000;
    expect((await call(token, 'POST', '/pets', REX)).response.status).toBe(201);

    await keys.setScopes(record.keyId, ['pets:read'], TEST_CONTEXT);
    aheadMs += (AUTHORIZER_CACHE_TTL_SECONDS + 1) * 1000;
    expect((await call(token, 'POST', '/pets', REX)).response.status).toBe(403);
    expect((await call(token, 'GET', '/pets?limit=1')).response.status).toBe(200);
  });
});
