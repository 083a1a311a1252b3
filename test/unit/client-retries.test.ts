/**
 * The client's retries (client/src/retry.ts, client/src/transport.ts) against a scripted `fetch`:
 * what is retried, with which Idempotency-Key, how long it waits, and when it gives up. Timers
 * and `performance.now()` are faked, so waits cost no real time and can be read exactly.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  backoffDelay,
  CREATE_RETRY_FLOOR_MS,
  PetstoreClient,
  type PetstoreClientOptions,
  PetstoreError,
  type PetstoreErrorCode,
  type RetryEvent,
} from '../../client/src/index.ts';

const BASE_URL = 'https://api.example/v1';
const PET = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };

/** A JSON answer as the API sends it. */
function answer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'Content-Type': 'application/json',
      'x-amzn-RequestId': `req-${status}`,
      ...headers,
    },
  });
}

/** An Error answer `{code, message, status}`. */
function failure(status: number, code: string, headers: Record<string, string> = {}): Response {
  return answer(status, { code, message: `${code} message`, status }, headers);
}

/** A fetch that answers from `script` in turn (an Error is thrown as a network failure). */
function scriptedFetch(script: (Response | Error)[]) {
  const sent: { request: Request; at: number }[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    sent.push({ request: new Request(input, init), at: performance.now() });
    const next = script.shift();
    if (next === undefined) throw new Error('the script has no more answers');
    if (next instanceof Error) throw next;
    return next;
  });
  return { fetch: fetch as typeof globalThis.fetch, sent };
}

function client(fetch: typeof globalThis.fetch, options: Partial<PetstoreClientOptions> = {}) {
  return new PetstoreClient({ baseUrl: BASE_URL, apiKey: 'key', fetch, ...options });
}

/** Runs `call` to its end while advancing the fake timers through every wait. */
async function settle<T>(call: Promise<T>): Promise<T> {
  const settled = call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  const outcome = await settled;
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/** The PetstoreError `call` rejects with. */
async function failureOf(call: Promise<unknown>): Promise<PetstoreError> {
  const error = await settle(call).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PetstoreError);
  return error as PetstoreError;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('backoffDelay', () => {
  const options = { baseDelayMs: 500, maxDelayMs: 4_000 };

  it('draws uniformly below min(maxDelayMs, baseDelayMs × 2^(retry − 1)) (full jitter)', () => {
    expect(
      [1, 2, 3, 4, 5].map((retry) => backoffDelay(retry, undefined, options, () => 0.999)),
    ).toEqual([499, 999, 1_998, 3_996, 3_996]);
    expect(backoffDelay(3, undefined, options, () => 0)).toBe(0);
    expect(backoffDelay(3, undefined, options, () => 0.5)).toBe(1_000);
  });

  it('is never shorter than Retry-After, and longer only when the jitter draws more', () => {
    expect(backoffDelay(1, 5, options, () => 0.999)).toBe(5_000);
    expect(backoffDelay(5, 2, options, () => 0.999)).toBe(3_996);
  });
});

describe('which failures are retried', () => {
  it.each([
    ['503 service_unavailable', () => failure(503, 'service_unavailable', { 'Retry-After': '5' })],
    ['502 bad_gateway', () => failure(502, 'bad_gateway')],
    ['504 gateway_timeout', () => failure(504, 'gateway_timeout')],
    ['a 502 that is not JSON', () => new Response('<html>Bad Gateway</html>', { status: 502 })],
    ['429 rate_limited', () => failure(429, 'rate_limited', { 'Retry-After': '2' })],
    ['a network error', () => new TypeError('fetch failed')],
  ])('retries listPets after %s', async (_, fail) => {
    const { fetch, sent } = scriptedFetch([fail(), answer(200, [PET])]);

    const page = await settle(client(fetch).listPets());

    expect(page.data).toEqual([PET]);
    expect(page.attempts).toBe(2);
    expect(sent).toHaveLength(2);
  });

  it.each([
    [429, 'api_key_temporarily_banned'],
    [429, 'quota_exceeded'],
    [400, 'invalid_parameter'],
    [401, 'unauthorized'],
    [404, 'pet_not_found'],
    [500, 'internal_error'],
  ])('never retries %i %s, and throws it typed', async (status, code) => {
    const { fetch, sent } = scriptedFetch([
      failure(status, code, { 'Retry-After': '900', 'X-RateLimit-Remaining': '0' }),
    ]);

    const error = await failureOf(client(fetch).getPet(7));

    expect(sent).toHaveLength(1);
    expect(error).toMatchObject({
      name: 'PetstoreError',
      code,
      status,
      message: `${code} message`,
      requestId: `req-${status}`,
      retryAfter: 900,
      attempts: 1,
    });
    expect(error.rateLimit?.remaining).toBe(0);
  });

  it('never retries a create answered 403 insufficient_scope, though it has a key', async () => {
    const { fetch, sent } = scriptedFetch([
      failure(403, 'insufficient_scope', {
        'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="pets:write"',
      }),
    ]);

    const error = await failureOf(client(fetch).createPet({ name: 'Rex', categoryId: 1 }));

    // A code of the client's types, so that callers can switch on it.
    const insufficientScope: PetstoreErrorCode = 'insufficient_scope';
    expect(sent).toHaveLength(1);
    expect(error).toMatchObject({ code: insufficientScope, status: 403, attempts: 1 });
    expect(error.headers?.get('WWW-Authenticate')).toContain('scope="pets:write"');
  });

  it('retries a create answered 409 idempotency_request_in_progress, with its key', async () => {
    const { fetch, sent } = scriptedFetch([
      failure(409, 'idempotency_request_in_progress', { 'Retry-After': '8' }),
      answer(201, PET, { 'Idempotent-Replayed': 'true' }),
    ]);

    const created = await settle(client(fetch).createPet({ name: 'Rex', categoryId: 1 }));

    expect(sent.map(({ at }) => at)).toEqual([0, 8_000]);
    expect(created.replayed).toBe(true);
  });

  it("waits at least CREATE_RETRY_FLOOR_MS before sending a create again: the regions' replication lag", async () => {
    const { fetch, sent } = scriptedFetch([new TypeError('fetch failed'), answer(201, PET)]);

    await settle(
      client(fetch, { retry: { baseDelayMs: 1 } }).createPet({ name: 'Rex', categoryId: 1 }),
    );

    expect(sent.map(({ at }) => at)).toEqual([0, CREATE_RETRY_FLOOR_MS]);
    expect(CREATE_RETRY_FLOOR_MS).toBe(2_000);
  });

  it('gives up after maxAttempts and throws the last error, counting the attempts', async () => {
    const { fetch, sent } = scriptedFetch([
      failure(503, 'service_unavailable'),
      failure(502, 'bad_gateway'),
      failure(504, 'gateway_timeout'),
    ]);

    const error = await failureOf(client(fetch, { retry: { maxAttempts: 3 } }).listPets());

    expect(sent).toHaveLength(3);
    expect(error).toMatchObject({ code: 'gateway_timeout', status: 504, attempts: 3 });
  });

  it('does not start a retry whose wait would go past maxElapsedMs, and returns the 429 at once', async () => {
    const { fetch, sent } = scriptedFetch([failure(429, 'rate_limited', { 'Retry-After': '60' })]);

    const error = await failureOf(
      client(fetch, { retry: { maxElapsedMs: 30_000 } }).listPets({ status: 'sold' }),
    );

    expect(sent).toHaveLength(1);
    expect(error).toMatchObject({ code: 'rate_limited', retryAfter: 60 });
    expect(performance.now()).toBe(0);
  });

  it('sends once when retry is false', async () => {
    const { fetch, sent } = scriptedFetch([failure(503, 'service_unavailable')]);

    await failureOf(client(fetch, { retry: false }).listPets());

    expect(sent).toHaveLength(1);
  });
});

describe('waits', () => {
  it('waits at least Retry-After after a 429 rate_limited and a 503, and reports each retry', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const retries: RetryEvent[] = [];
    const { fetch, sent } = scriptedFetch([
      failure(429, 'rate_limited', { 'Retry-After': '3' }),
      failure(503, 'service_unavailable', { 'Retry-After': '5' }),
      answer(200, [PET]),
    ]);

    await settle(client(fetch, { retry: { onRetry: (event) => retries.push(event) } }).listPets());

    expect(sent.map(({ at }) => at)).toEqual([0, 3_000, 8_000]);
    expect(retries.map(({ attempt, delayMs, error }) => [attempt, delayMs, error.code])).toEqual([
      [1, 3_000, 'rate_limited'],
      [2, 5_000, 'service_unavailable'],
    ]);
  });

  it('holds back its other retrying calls while a 429 asks to wait, so they add no refused request', async () => {
    const { fetch, sent } = scriptedFetch([
      failure(429, 'rate_limited', { 'Retry-After': '10' }),
      answer(200, [PET]),
      answer(200, [PET]),
    ]);
    const petstore = client(fetch);

    const first = petstore.listPets();
    await vi.advanceTimersByTimeAsync(1_000);
    const second = petstore.listPets({ status: 'sold' });
    await settle(Promise.all([first, second]));

    expect(sent.map(({ at }) => at)).toEqual([0, 10_000, 10_000]);
  });

  it('fails an attempt with timeout when no answer comes within timeoutMs, and retries it', async () => {
    vi.useRealTimers();
    const hanging = vi.fn(
      (_: unknown, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    );
    const petstore = client(hanging as typeof globalThis.fetch, {
      timeoutMs: 20,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });

    const error = await petstore.listPets().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PetstoreError);
    expect(error).toMatchObject({ code: 'timeout', status: undefined, attempts: 2 });
    expect(hanging).toHaveBeenCalledTimes(2);
  });

  it('rejects with the signal reason when the caller aborts during a wait', async () => {
    const { fetch } = scriptedFetch([failure(503, 'service_unavailable', { 'Retry-After': '5' })]);
    const controller = new AbortController();

    const call = client(fetch).listPets({}, { signal: controller.signal });
    await vi.advanceTimersByTimeAsync(1_000);
    controller.abort(new Error('stop'));

    await expect(call).rejects.toThrow('stop');
  });
});

describe('Idempotency-Key', () => {
  it('sends one UUID, quoted as a Structured Field string, on every attempt of a createPet', async () => {
    const { fetch, sent } = scriptedFetch([
      new TypeError('fetch failed'),
      failure(503, 'service_unavailable', { 'Retry-After': '5' }),
      answer(201, PET),
    ]);

    const created = await settle(client(fetch).createPet({ name: 'Rex', categoryId: 1 }));

    const keys = sent.map(({ request }) => request.headers.get('Idempotency-Key'));
    expect(keys).toEqual(Array(3).fill(`"${created.idempotencyKey}"`));
    expect(created.idempotencyKey).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(await sent[2]?.request.json()).toEqual({ name: 'Rex', categoryId: 1 });
    expect(created).toMatchObject({ data: PET, status: 201, attempts: 3, replayed: false });
  });

  it("sends a fresh key per createPet call, and the caller's own when given", async () => {
    const { fetch, sent } = scriptedFetch([answer(201, PET), answer(201, PET), answer(201, PET)]);
    const petstore = client(fetch);

    await settle(petstore.createPet({ name: 'A', categoryId: 1 }));
    await settle(petstore.createPet({ name: 'B', categoryId: 1 }));
    await settle(
      petstore.createPet({ name: 'C', categoryId: 1 }, { idempotencyKey: 'order-"42"' }),
    );

    const [a, b, c] = sent.map(({ request }) => request.headers.get('Idempotency-Key'));
    expect(a).not.toBe(b);
    expect(c).toBe('"order-\\"42\\""');
  });

  it('never retries a createPet without a key, and refuses to drop the key while retries are on', async () => {
    const { fetch, sent } = scriptedFetch([failure(503, 'service_unavailable')]);
    const petstore = client(fetch);

    const error = await failureOf(
      petstore.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: false, retry: false }),
    );
    expect(error.attempts).toBe(1);
    expect(sent[0]?.request.headers.has('Idempotency-Key')).toBe(false);
    await expect(
      petstore.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: false } as never),
    ).rejects.toThrow(TypeError);
    await expect(
      petstore.createPet({ name: 'Rex', categoryId: 1 }, { idempotencyKey: 'has space' }),
    ).rejects.toThrow(TypeError);
    expect(sent).toHaveLength(1);
  });
});
