/**
 * The rateLimit middleware on the in-memory limiter: its fields on every answer, 429s and bans,
 * failing open past its deadline, and the operations behind it. A failing counters table is
 * tested on DynamoDB Local (test/dynamodb/rate-limit-middleware.test.ts).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPetHandler } from '../../functions/handlers/create-pet.ts';
import { listPetsHandler } from '../../functions/handlers/list-pets.ts';
import { createLambdaContext, createProxyEvent } from '../../infra/local/events.ts';
import { logger } from '../../shared/logger.ts';
import { banPolicyOf, type RateLimiter } from '../../shared/rate-limit/rate-limiter.ts';
import { readSettings } from '../../shared/settings.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import { TOMORROW } from '../support/clock.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';
import { InMemoryRateLimiter } from '../support/in-memory-rate-limiter.ts';
import {
  countingOperation as countingBehind,
  DAY_RESET,
  getEvent,
  invocationContext,
  key,
  MINUTE_RESET,
  NOW,
} from '../support/rate-limit-middleware.ts';

const container = inMemoryContainer();
const createPet = createPetHandler(container);
const listPets = listPetsHandler(container);
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** An operation that counts its calls, behind a limiter with a 2-rejection ban and a fixed clock. */
function countingOperation(
  limiter: RateLimiter = new InMemoryRateLimiter({ threshold: 2, durationSeconds: 600 }),
) {
  return countingBehind(limiter);
}

describe('rateLimit middleware', () => {
  it('puts both vocabularies of rate-limit fields on an admitted answer', async () => {
    const { handler } = countingOperation();
    const response = await handler(getEvent(key(60, 1000)), invocationContext());
    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({
      'Content-Type': 'application/json',
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
      'X-RateLimit-Reset': MINUTE_RESET,
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
      RateLimit: '"minute";r=59;t=45, "day";r=999;t=48585',
    });
  });

  it('reports the day window in the X-RateLimit fields when it has fewer requests left', async () => {
    const limiter = new InMemoryRateLimiter();
    const { handler } = countingOperation(limiter);
    const k = key(10, 12);
    // 8 requests in the previous minute: this minute has 10 left, the day 4.
    for (let i = 0; i < 8; i += 1) await limiter.consume(k.keyId, k, NOW - 60_000);
    const response = await handler(getEvent(k), invocationContext());
    expect(response.headers).toMatchObject({
      'X-RateLimit-Limit': '12',
      'X-RateLimit-Remaining': '3',
      'X-RateLimit-Reset': DAY_RESET,
    });
  });

  it('answers 429 rate_limited with Retry-After and does not run the operation', async () => {
    const counted = vi.spyOn(Metrics.prototype, 'addMetric');
    const { handler, calls } = countingOperation();
    const k = key(1, 1000);
    await handler(getEvent(k), invocationContext());

    const response = await handler(getEvent(k), invocationContext());
    expect(calls.count).toBe(1);
    expect(counted.mock.calls).toEqual([['RateLimitRefused', MetricUnit.Count, 1]]);
    expect(response).toEqual({
      statusCode: 429,
      headers: {
        'Content-Type': 'application/json',
        'Retry-After': '45',
        'X-RateLimit-Limit': '1',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': MINUTE_RESET,
        'RateLimit-Policy': '"minute";q=1;w=60, "day";q=1000;w=86400',
        RateLimit: '"minute";r=0;t=45, "day";r=999;t=48585',
      },
      body: JSON.stringify({
        code: 'rate_limited',
        message: 'Rate limit of 1 requests per minute exceeded; retry after 45 seconds.',
        status: 429,
      }),
    });
  });

  it('answers 429, not the 400 of a query checked while the count was in flight', async () => {
    const { handler, calls } = countingOperation();
    const k = key(1, 1000);
    await handler(getEvent(k), invocationContext());
    const query = new URLSearchParams('page=2');

    const response = await handler(
      authorizedEvent({ method: 'GET', resource: '/things', path: '/things', query }, k),
      invocationContext(),
    );

    expect(calls.count).toBe(1);
    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body).code).toBe('rate_limited');
    expect(response.headers).toMatchObject({ 'Retry-After': '45', 'X-RateLimit-Remaining': '0' });
  });

  it('answers 429 api_key_temporarily_banned with Retry-After until the ban ends', async () => {
    const counted = vi.spyOn(Metrics.prototype, 'addMetric');
    const { handler, calls } = countingOperation();
    const k = key(1, 1000);
    const statuses = [];
    for (let i = 0; i < 4; i += 1)
      statuses.push((await handler(getEvent(k), invocationContext())).statusCode);
    expect(statuses).toEqual([200, 429, 429, 429]);

    const response = await handler(getEvent(k), invocationContext());
    expect(calls.count).toBe(1);
    expect(counted).toHaveBeenLastCalledWith('RateLimitBanned', MetricUnit.Count, 1);
    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body)).toEqual({
      code: 'api_key_temporarily_banned',
      message: `This API key kept sending requests after being rate limited and is banned until ${TOMORROW}T10:40:15.000Z; retry after 600 seconds.`,
      status: 429,
    });
    expect(response.headers).toMatchObject({
      'Retry-After': '600',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(NOW / 1000 + 600),
    });
  });

  it('fails open when the counters table does not answer within the deadline (RATE_LIMIT_DEADLINE_MS)', async () => {
    vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    vi.stubEnv('RATE_LIMIT_DEADLINE_MS', '50');
    // A limiter whose calls hang until their signal aborts, as on a frozen table.
    const hanging = {
      consume: (...[, , , signal]: Parameters<RateLimiter['consume']>) =>
        new Promise<never>((_, reject) =>
          signal?.addEventListener('abort', () => reject(new Error('aborted'))),
        ),
    };
    const { handler, calls } = countingOperation(hanging);

    const response = await handler(getEvent(key(60, 1000)), invocationContext());

    expect(response.statusCode).toBe(200);
    expect(calls.count).toBe(1);
    expect(response.headers).not.toHaveProperty('X-RateLimit-Remaining');

    vi.stubEnv('RATE_LIMIT_DEADLINE_MS', '1.5');
    expect(() => countingOperation(hanging)).toThrow(
      'Environment variable RATE_LIMIT_DEADLINE_MS must be a whole number >= 1, not "1.5"',
    );
  });

  it('answers 500 when the authorizer context is missing (a deployment fault)', async () => {
    vi.spyOn(logger, 'error').mockImplementation(() => undefined);
    const { handler, calls } = countingOperation();
    const response = await handler(
      createProxyEvent({ method: 'GET', resource: '/things', path: '/things' }),
      invocationContext(),
    );
    expect(response.statusCode).toBe(500);
    expect(calls.count).toBe(0);
  });
});

describe('the operations behind the limiter', () => {
  const { pets } = container;
  const countPets = async () => (await pets.listPets({ limit: 100 })).pets.length;

  it('writes no pet for a createPet refused with 429', async () => {
    const k = key(1, 1000);
    const create = (name: string) =>
      createPet(
        authorizedEvent(
          {
            method: 'POST',
            resource: '/pets',
            path: '/pets',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ name, categoryId: 1 }),
          },
          k,
        ),
        createLambdaContext('create-pet'),
      );
    expect((await create('First')).statusCode).toBe(201);
    const before = await countPets();

    const refused = await create('Second');
    expect(refused.statusCode).toBe(429);
    expect(await countPets()).toBe(before);
  });

  it('puts the rate-limit fields on a 400 answer too', async () => {
    const response = await listPets(
      authorizedEvent(
        { method: 'GET', resource: '/pets', path: '/pets', query: new URLSearchParams('limit=0') },
        key(60, 1000),
      ),
      createLambdaContext('list-pets'),
    );
    expect(response.statusCode).toBe(400);
    expect(response.headers).toMatchObject({
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Remaining': '59',
    });
  });
});

describe('banPolicyOf the settings', () => {
  it('defaults to 50 rejected requests per minute and 15-minute bans', () => {
    expect(banPolicyOf(readSettings({}))).toEqual({ threshold: 50, durationSeconds: 900 });
  });

  it('reads both settings from the environment', () => {
    expect(
      banPolicyOf(readSettings({ RATE_LIMIT_BAN_THRESHOLD: '5', RATE_LIMIT_BAN_SECONDS: '60' })),
    ).toEqual({ threshold: 5, durationSeconds: 60 });
  });

  it.each(['0', '-1', '1.5', 'ten'])('refuses %j at start-up', (value) => {
    expect(() => readSettings({ RATE_LIMIT_BAN_SECONDS: value })).toThrow(
      `Environment variable RATE_LIMIT_BAN_SECONDS must be a whole number >= 1, not "${value}"`,
    );
  });
});
