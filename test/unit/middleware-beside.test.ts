/**
 * Each operation's first store call beside the rate limiter's call (`readBesideCount`): it starts before the
 * limiter has answered; a refused request keeps today's 429 and discards it, whatever else failed
 * meanwhile; a key this instance expects refused starts none; failures of either side keep their
 * answers, and no promise is left unhandled whichever settles first.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPetHandler } from '../../functions/handlers/create-pet.ts';
import { getPetHandler } from '../../functions/handlers/get-pet.ts';
import { listPetsHandler } from '../../functions/handlers/list-pets.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { logger } from '../../shared/logger.ts';
import type { PetStore } from '../../shared/pets/pet-store.ts';
import type { RateLimiter } from '../../shared/rate-limit/rate-limiter.ts';
import { StoreUnavailableError, unlessUnavailable } from '../../shared/store-errors.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';
import { InMemoryRateLimiter } from '../support/in-memory-rate-limiter.ts';
import { key, MINUTE_RESET, NOW } from '../support/rate-limit-middleware.ts';

type Key = ReturnType<typeof key>;

/** In-memory adapters, the limiter's clock at {@link NOW}, a 2-rejection ban and `limiter`. */
function containerWith(limiter?: RateLimiter) {
  const container = inMemoryContainer({
    RATE_LIMIT_BAN_THRESHOLD: '2',
    RATE_LIMIT_BAN_SECONDS: '600',
    RATE_LIMIT_DEADLINE_MS: '1000',
  });
  return { ...container, rateLimiter: limiter ?? container.rateLimiter, now: () => NOW };
}

const getPetEvent = (k: Key, petId = '1') =>
  authorizedEvent(
    { method: 'GET', resource: '/pets/{petId}', path: `/pets/${petId}`, pathParameters: { petId } },
    k,
  );

/** Each operation, its request, and the store call it starts beside the limiter's. */
const OPERATIONS = [
  {
    name: 'getPet',
    call: 'getPet',
    handlerOf: getPetHandler,
    event: (k: Key) => getPetEvent(k),
    status: 200,
  },
  {
    name: 'listPets',
    call: 'listPets',
    handlerOf: listPetsHandler,
    event: (k: Key) =>
      authorizedEvent(
        {
          method: 'GET',
          resource: '/pets',
          path: '/pets',
          query: new URLSearchParams('status=sold'),
        },
        k,
      ),
    status: 200,
  },
  {
    name: 'createPet',
    call: 'prepareCreate',
    handlerOf: createPetHandler,
    event: (k: Key) =>
      authorizedEvent(
        {
          method: 'POST',
          resource: '/pets',
          path: '/pets',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: 'Rex', categoryId: 1, status: 'available' }),
        },
        k,
      ),
    status: 201,
  },
] as const;

const context = () => createLambdaContext('beside-test');

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  vi.restoreAllMocks();
});

/** Never settles, unless `signal` aborts: then rejects with its reason, as an SDK call does. */
const hang = (signal?: AbortSignal) =>
  new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));

/** Waits until Node has reported every rejection left unhandled so far. */
async function settled(): Promise<unknown[]> {
  await sleep(20);
  return unhandled;
}

describe('work beside the rate limiter', () => {
  it.each(OPERATIONS)(
    '$name starts $call before the limiter has answered, and answers with both',
    async (operation) => {
      const real = new InMemoryRateLimiter();
      let readStarted: () => void = () => undefined;
      const started = new Promise<void>((resolve) => {
        readStarted = resolve;
      });
      // A limiter that answers only once the store call has started: after it, it would time out.
      const limiter: RateLimiter = {
        consume: async (keyId, limits, nowMs, signal) => {
          await Promise.race([started, hang(signal)]);
          return real.consume(keyId, limits, nowMs);
        },
      };
      const container = containerWith(limiter);
      await container.pets.createPet({ name: 'Rex', categoryId: 1, status: 'sold' });
      const store = container.pets as unknown as Record<string, (...args: unknown[]) => unknown>;
      const original = store[operation.call]?.bind(store);
      vi.spyOn(store, operation.call).mockImplementation((...args) => {
        readStarted();
        return original?.(...args);
      });

      const response = await operation.handlerOf(container)(
        operation.event(key(60, 1000)),
        context(),
      );

      expect(response.statusCode).toBe(operation.status);
      expect(response.headers).toHaveProperty('X-RateLimit-Remaining', '59');
    },
  );

  it('answers a refused getPet with the 429 of the limiter and discards the pet it read', async () => {
    const container = containerWith();
    await container.pets.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
    const reads = vi.spyOn(container.pets, 'getPet');
    const k = key(1, 1000);
    // The minute used up by another instance: this one does not know the key.
    await container.rateLimiter.consume(k.keyId, k, NOW);

    const response = await getPetHandler(container)(getPetEvent(k), context());

    expect(reads).toHaveBeenCalledTimes(1);
    expect(response.statusCode).toBe(429);
    expect(response.headers).toMatchObject({
      'Retry-After': '45',
      'X-RateLimit-Limit': '1',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': MINUTE_RESET,
      Deprecation: '@1795219200',
    });
    expect(JSON.parse(response.body)).toEqual({
      code: 'rate_limited',
      message: 'Rate limit of 1 requests per minute exceeded; retry after 45 seconds.',
      status: 429,
    });
  });

  it('reads nothing for a key this instance knows to be over its minute or banned, and still counts its refusals', async () => {
    const limiter = new InMemoryRateLimiter({ threshold: 2, durationSeconds: 600 });
    const consumed = vi.spyOn(limiter, 'consume');
    const container = containerWith(limiter);
    await container.pets.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
    const reads = vi.spyOn(container.pets, 'getPet');
    const handler = getPetHandler(container);
    const k = key(1, 1000);

    const codes = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await handler(getPetEvent(k), context());
      codes.push(response.statusCode === 200 ? 200 : JSON.parse(response.body).code);
    }

    expect(codes).toEqual([
      200,
      'rate_limited',
      'rate_limited',
      'api_key_temporarily_banned',
      'api_key_temporarily_banned',
    ]);
    expect(consumed).toHaveBeenCalledTimes(5);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('reads after the verdict when a key this instance expected refused is admitted', async () => {
    const events: string[] = [];
    let current = new InMemoryRateLimiter();
    const limiter: RateLimiter = {
      consume: async (keyId, limits, nowMs) => {
        const decision = await current.consume(keyId, limits, nowMs);
        events.push('limiter answered');
        return decision;
      },
    };
    const container = containerWith(limiter);
    const pet = await container.pets.createPet({ name: 'Rex', categoryId: 1, status: 'available' });
    const getPet = container.pets.getPet.bind(container.pets);
    vi.spyOn(container.pets, 'getPet').mockImplementation(async (...args) => {
      events.push('read');
      return getPet(...args);
    });
    const handler = getPetHandler(container);
    const k = key(1, 1000);
    expect((await handler(getPetEvent(k), context())).statusCode).toBe(200);
    // Counted afresh elsewhere (a raised limit, a reset): this instance's memory is out of date.
    current = new InMemoryRateLimiter();
    events.length = 0;

    const response = await handler(getPetEvent(k, String(pet.id)), context());

    expect(events).toEqual(['limiter answered', 'read']);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toMatchObject({ id: pet.id, name: 'Rex' });
  });
});

describe('failures beside the rate limiter', () => {
  /** A limiter that refuses `k` (its minute used up) after `delayMs`. */
  async function refusingAfter(k: Key, delayMs: number): Promise<RateLimiter> {
    const real = new InMemoryRateLimiter();
    await real.consume(k.keyId, k, NOW);
    return {
      consume: async (keyId, limits, nowMs) => {
        await sleep(delayMs);
        return real.consume(keyId, limits, nowMs);
      },
    };
  }

  /** getPet on `limiter`, its read failing after `delayMs`. */
  function getPetFailingAfter(limiter: RateLimiter, delayMs: number) {
    const container = containerWith(limiter);
    vi.spyOn(container.pets, 'getPet').mockImplementation(async () => {
      await sleep(delayMs);
      throw new StoreUnavailableError('The pets table did not answer.');
    });
    return getPetHandler(container);
  }

  it.each([
    ['the read fails before the limiter refuses', 0, 10],
    ['the limiter refuses before the read fails', 10, 0],
  ])('answers 429 and leaves no promise unhandled when %s', async (_, readMs, limiterMs) => {
    vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const k = key(1, 1000);
    const handler = getPetFailingAfter(await refusingAfter(k, limiterMs), readMs);

    const response = await handler(getPetEvent(k), context());

    expect(response.statusCode).toBe(429);
    expect(JSON.parse(response.body).code).toBe('rate_limited');
    expect(await settled()).toEqual([]);
  });

  it('answers 503 with Retry-After, uncounted, when both the limiter and the read fail', async () => {
    vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const failing: RateLimiter = {
      consume: async () => {
        await sleep(5);
        throw new StoreUnavailableError('The counters table did not answer.');
      },
    };
    const handler = getPetFailingAfter(failing, 0);

    const response = await handler(getPetEvent(key(60, 1000)), context());

    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({ 'Retry-After': '5', 'X-RateLimit-Limit': '60' });
    expect(response.headers).not.toHaveProperty('X-RateLimit-Remaining');
    expect(await settled()).toEqual([]);
  });

  it('answers 503 when the invocation deadline passes with the limiter and the read both hanging', async () => {
    vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const container = containerWith({ consume: (...[, , , signal]) => hang(signal) });
    const pets: PetStore = container.pets;
    // As the adapter's call fails when its signal aborts.
    vi.spyOn(pets, 'getPet').mockImplementation((_, options) =>
      unlessUnavailable(() => hang(options?.signal)),
    );
    // 1.1 s left: after the response margin (1 s), 100 ms for both calls, below the limiter's 1 s.
    const shortContext: Context = { ...context(), getRemainingTimeInMillis: () => 1_100 };

    const response = await getPetHandler(container)(getPetEvent(key(60, 1000)), shortContext);

    expect(response.statusCode).toBe(503);
    expect(JSON.parse(response.body).code).toBe('service_unavailable');
    expect(await settled()).toEqual([]);
  });
});

describe('createPet beside the rate limiter', () => {
  const createEvent = (k: Key): APIGatewayProxyEvent => OPERATIONS[2].event(k);

  it('creates the pet when readying the next create fails: the create takes its id itself', async () => {
    const warned = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const container = containerWith();
    vi.spyOn(container.pets, 'prepareCreate').mockRejectedValue(
      new StoreUnavailableError('The pets table did not answer.'),
    );

    const response = await createPetHandler(container)(createEvent(key(60, 1000)), context());

    expect(response.statusCode).toBe(201);
    expect(warned).toHaveBeenCalledWith(
      'Could not ready the next create; it takes its id itself',
      expect.objectContaining({ error: expect.any(StoreUnavailableError) }),
    );
    expect(await settled()).toEqual([]);
  });

  it('creates only once the next create is ready', async () => {
    const events: string[] = [];
    const container = containerWith();
    vi.spyOn(container.pets, 'prepareCreate').mockImplementation(async () => {
      await sleep(10);
      events.push('ready');
    });
    const createPet = container.pets.createPet.bind(container.pets);
    vi.spyOn(container.pets, 'createPet').mockImplementation(async (...args) => {
      events.push('create');
      return createPet(...args);
    });

    const response = await createPetHandler(container)(createEvent(key(60, 1000)), context());

    expect(response.statusCode).toBe(201);
    expect(events).toEqual(['ready', 'create']);
  });
});
