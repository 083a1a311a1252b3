/**
 * The official client (client/) against the local gateway over HTTP, with DynamoDB Local: what
 * its results and errors carry, its deprecation hook, and its retries after a 429, which wait for
 * `Retry-After` and so never get the key banned. Retries after a frozen store: faults.test.ts;
 * paging 230 pets: pagination.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DeprecationNotice, PetstoreClient, PetstoreError } from '../../client/src/index.ts';
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { issueToken } from '../support/api-client.ts';
import { earlyInUtcMinute, tomorrowAt } from '../support/clock.ts';
import { seedKey } from '../support/test-keys.ts';

let gateway: LocalGateway;
let token: string;
let petstore: PetstoreClient;
const deprecations: DeprecationNotice[] = [];

beforeAll(async () => {
  // A key is banned after its second refused request in a minute: one early retry would do it.
  process.env.RATE_LIMIT_BAN_THRESHOLD = '1';
  // Exact counting, not a slow store, is under test (see rate-limits.test.ts).
  process.env.RATE_LIMIT_DEADLINE_MS = '60000';
  gateway = await startGateway({ port: 0 });
  token = await issueToken('business');
  petstore = new PetstoreClient({
    baseUrl: gateway.url,
    apiKey: token,
    onDeprecation: (notice) => deprecations.push(notice),
  });
});
afterAll(() => gateway?.close());

/** The PetstoreError `call` rejects with. */
async function failureOf(call: Promise<unknown>): Promise<PetstoreError> {
  const error = await call.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PetstoreError);
  return error as PetstoreError;
}

const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('results', () => {
  it('carry the parsed rate-limit state, the request id, and whether the create was replayed', async () => {
    const pet = { name: `Replayed ${randomUUID()}`, categoryId: 3 };
    const idempotencyKey = randomUUID();
    await earlyInUtcMinute(55); // both creates in one minute window, so `remaining` drops by one
    const sentAt = Date.now();

    const created = await petstore.createPet(pet, { idempotencyKey });
    const again = await petstore.createPet(pet, { idempotencyKey });

    expect(created).toMatchObject({ status: 201, replayed: false, attempts: 1, idempotencyKey });
    expect(created.data).toEqual({ id: expect.any(Number), ...pet, status: 'available' });
    expect(again).toMatchObject({ status: 201, replayed: true, data: created.data });
    expect(created.requestId).toMatch(REQUEST_ID);
    expect(again.requestId).not.toBe(created.requestId);
    const { rateLimit } = again;
    expect(rateLimit.limit).toBe(1000);
    expect(rateLimit.remaining).toBe((created.rateLimit.remaining ?? 0) - 1);
    expect(rateLimit.reset?.getTime()).toBeGreaterThan(sentAt);
    expect(rateLimit.policies).toEqual([
      { name: 'minute', quota: 1000, windowSeconds: 60, quotaUnit: undefined },
      { name: 'day', quota: 100_000, windowSeconds: 86_400, quotaUnit: undefined },
    ]);
    expect(rateLimit.windows.map((window) => [window.name, window.remaining])).toEqual([
      ['minute', rateLimit.remaining],
      ['day', expect.any(Number)],
    ]);
  });

  it("tell the deprecation hook of getPet's sunset once, however many getPet calls", async () => {
    const { data: pet } = await petstore.createPet({ name: 'Old way', categoryId: 1 });

    const first = await petstore.getPet(pet.id);
    await petstore.getPet(pet.id);

    expect(first.data).toEqual(pet);
    expect(deprecations).toEqual([
      {
        operation: 'getPet',
        deprecatedAt: expect.any(Date),
        sunset: new Date('2030-12-05T00:00:00Z'),
        successor: `${new URL(gateway.url).origin}/v1/pets`,
      },
    ]);
  });
});

describe('errors', () => {
  it('are PetstoreErrors with the Error body, the status, the request id and the rate-limit state', async () => {
    const notFound = await failureOf(petstore.getPet(987_654_321));
    const invalid = await failureOf(petstore.createPet({ name: ' ', categoryId: 1 }));
    const reused = randomUUID();
    await petstore.createPet({ name: 'First', categoryId: 1 }, { idempotencyKey: reused });
    const conflict = await failureOf(
      petstore.createPet({ name: 'Second', categoryId: 1 }, { idempotencyKey: reused }),
    );

    expect(notFound).toMatchObject({ code: 'pet_not_found', status: 404, attempts: 1 });
    expect(notFound.message).toBe('No pet has id 987654321.');
    expect(invalid).toMatchObject({ code: 'invalid_body', status: 400, attempts: 1 });
    expect(conflict).toMatchObject({ code: 'idempotency_key_reused', status: 422, attempts: 1 });
    for (const error of [notFound, invalid, conflict]) {
      expect(error.requestId).toMatch(REQUEST_ID);
      expect(error.rateLimit?.limit).toBe(1000);
    }
  });

  it('are unauthorized (401) for an unknown key, made by the gateway, with no rate-limit state', async () => {
    const stranger = new PetstoreClient({ baseUrl: gateway.url, apiKey: 'not-a-key' });

    const error = await failureOf(stranger.listPets());

    expect(error).toMatchObject({ code: 'unauthorized', status: 401, retryAfter: undefined });
    expect(error.requestId).toMatch(REQUEST_ID);
    expect(error.headers?.get('www-authenticate')).toBe('Bearer');
    expect(error.rateLimit).toMatchObject({ limit: undefined, remaining: undefined, policies: [] });
  });

  it('are network_error when nothing answers, after the retries', async () => {
    const nowhere = new PetstoreClient({
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: token,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });

    const error = await failureOf(nowhere.listPets());

    expect(error).toMatchObject({ code: 'network_error', status: undefined, attempts: 2 });
  });
});

describe('a 429 rate_limited', () => {
  it('is retried after at least Retry-After, and the retry leaves the key unbanned', async () => {
    const { record, token: limited } = await seedKey({
      plan: 'enterprise',
      limits: { perMinute: 3, perDay: 100 },
    });
    const sent: { at: number; status: number; retryAfter: number }[] = [];
    // The functions' clock stands 5 s before a UTC minute ends until a request is refused, then
    // runs as the real one (set before each request): a retry is admitted only once the client
    // has waited the whole Retry-After, and one sooner is refused a second time, which bans.
    const start = tomorrowAt('10:30:55');
    const client = new PetstoreClient({
      baseUrl: gateway.url,
      apiKey: limited,
      fetch: async (input, init) => {
        const at = performance.now();
        const refusedAt = sent.find(({ status }) => status === 429)?.at ?? at;
        vi.setSystemTime(start + (at - refusedAt));
        const response = await fetch(input, init);
        const retryAfter = Number(response.headers.get('retry-after'));
        sent.push({ at, status: response.status, retryAfter });
        return response;
      },
    });
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (let i = 0; i < 3; i++) await client.listPets({ limit: 1 });
      const page = await client.listPets({ limit: 1 });

      expect(page.attempts).toBe(2);
      expect(sent.map(({ status }) => status)).toEqual([200, 200, 200, 429, 200]);
      const [refused, retried] = sent.slice(3);
      expect(retried?.at ?? 0).toBeGreaterThanOrEqual(
        (refused?.at ?? 0) + (refused?.retryAfter ?? 0) * 1000,
      );
      expect((await createKeyService().getKey(record.keyId)).bannedUntil).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  }, 60_000);
});
