/**
 * The figures of issue 40's items 3 to 6 on the two-region local stack (lag 500 ms): limits
 * counted across regions (steady split traffic, a burst, the day window, a ban), keys honoured
 * in the other region, Idempotency-Key repeats in the other region, and pets listed in both.
 * Each figure is printed; the assertions are on behaviour (docs/architecture.md, "Regions").
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TEST_CONTEXT } from '../support/test-keys.ts';
import { call, eventually, pageAll, twoRegionsOfThisFile } from '../support/two-regions.ts';

const regions = twoRegionsOfThisFile();

const LAG_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const enterprise = (perMinute: number, perDay: number) =>
  regions().issueKey({ plan: 'enterprise', owner: 'figures', limits: { perMinute, perDay } });

/**
 * Sends 10 requests a second for `seconds`, alternating between the regions (5 a second each).
 * @returns The requests admitted.
 */
async function steady(token: string, seconds: number): Promise<number> {
  const answers: Promise<number>[] = [];
  const started = performance.now();
  for (let n = 0; n < seconds * 10; n++) {
    await sleep(Math.max(0, started + n * 100 - performance.now()));
    answers.push(call(regions().url(n % 2), token, '/pets?limit=1').then(({ status }) => status));
  }
  return (await Promise.all(answers)).filter((status) => status === 200).length;
}

/** Waits until the UTC second within the minute is in `[from, to]`. */
async function secondWithin(from: number, to: number): Promise<void> {
  const second = () => new Date().getUTCSeconds();
  while (second() < from || second() > to) await sleep(200);
}

describe('limits across two regions (item 3)', () => {
  it('admits steady split traffic at most 1.05x its limit, per minute and per day', async () => {
    const minuteKey = await enterprise(300, 100_000);
    const dayKey = await enterprise(300, 300);

    // Each key's traffic in its own part of the minute, the two at once where those overlap.
    const [perMinute, perDay] = await Promise.all([
      // 300 a minute at 10 a second is used up after 30 s: from second 0 to 25, 34 s see it
      // through in one minute.
      secondWithin(0, 25).then(() => steady(minuteKey, 34)),
      // From second 34 to 59: across the next minute's start, so the day is what binds.
      secondWithin(34, 59).then(() => steady(dayKey, 34)),
    ]);

    console.log(
      `steady 10/s over two regions: minute ${perMinute}/300 (${(perMinute / 300).toFixed(3)}x), day ${perDay}/300 (${(perDay / 300).toFixed(3)}x)`,
    );
    expect(perMinute).toBeGreaterThanOrEqual(300);
    expect(perMinute).toBeLessThanOrEqual(315);
    expect(perDay).toBeGreaterThanOrEqual(300);
    expect(perDay).toBeLessThanOrEqual(315);
  }, 180_000);

  it('never admits a burst more than regions x its limit', async () => {
    const token = await enterprise(100, 100_000);
    // In one minute's window: a burst across a minute's start meets two (at load it took 10 s).
    await secondWithin(0, 40);

    const answers = await Promise.all(
      Array.from({ length: 400 }, (_, n) => call(regions().url(n % 2), token, '/pets?limit=1')),
    );

    const admitted = answers.filter(({ status }) => status === 200).length;
    console.log(
      `burst of 400 at once over two regions, limit 100: ${admitted} admitted (bound 200)`,
    );
    expect(admitted).toBeGreaterThanOrEqual(100);
    expect(admitted).toBeLessThanOrEqual(200);
  }, 60_000);

  it('refuses in the other region a key banned in one, within the lag and 1 s', async () => {
    // 10 a minute: the usage plan's bucket (2x) lets the refusals that start a ban through.
    const token = await enterprise(10, 100_000);
    let banned: { status: number; body: unknown } | undefined;
    while (!banned) {
      const answer = await call(regions().url(0), token, '/pets?limit=1');
      if ((answer.body as { code?: string })?.code === 'api_key_temporarily_banned')
        banned = answer;
    }

    const { ms } = await eventually(async () => {
      const { body } = await call(regions().url(1), token, '/pets?limit=1');
      return (body as { code?: string })?.code === 'api_key_temporarily_banned' ? true : undefined;
    });

    console.log(
      `ban started in the home region, in force in the other after ${Math.round(ms)} ms (bound ${LAG_MS + 1000})`,
    );
    expect(banned.status).toBe(429);
  }, 60_000);
});

describe('keys, retries and pets across two regions (items 4 to 6)', () => {
  it('refuses in the other region a key revoked in the home region once the revocation replicated', async () => {
    const token = await enterprise(1_000, 100_000);
    const keyId = (await regions().keysElsewhere.findByToken(token))?.keyId ?? '';

    await regions().keys.revokeKey(keyId, TEST_CONTEXT);
    const { ms } = await eventually(async () =>
      (await regions().keysElsewhere.findByToken(token))?.revokedAt ? true : undefined,
    );
    // Never called there before: no cached Allow (a cached one lasts up to 60 s more).
    const { status } = await call(regions().url(1), token, '/pets?limit=1');

    console.log(
      `key revoked in the home region: in the other region's table after ${Math.round(ms)} ms; refused there from then on, or after the authorizer cache's 60 s for a token it had admitted`,
    );
    expect(status).toBe(401);
  }, 60_000);

  it('replays in the other region a create answered more than the lag before; within the lag at most one pet per region', async () => {
    const token = await enterprise(10_000, 100_000);
    const create = (at: number, key: string, name: string) =>
      call(regions().url(at), token, '/pets', {
        method: 'POST',
        body: { name, categoryId: 3 },
        headers: { 'Idempotency-Key': key },
      });
    const key = randomUUID();
    const first = await create(0, key, 'Once');
    await sleep(LAG_MS + 500);
    const repeat = await create(1, key, 'Once');

    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('Idempotent-Replayed')).toBe('true');
    expect(repeat.body).toEqual(first.body);

    const trials = 20;
    const keys = Array.from({ length: trials }, () => randomUUID());
    const pairs = await Promise.all(
      keys.map(async (within, n) => {
        const answers = await Promise.all([0, 1].map((at) => create(at, within, `Within ${n}`)));
        return answers.map(({ status, body }) =>
          status === 201 ? (body as { id: number }).id : status,
        );
      }),
    );
    await eventually(async () =>
      (await regions().replication()).pending === 0 ? true : undefined,
    );
    const later = await Promise.all(keys.map((within, n) => create(0, within, `Within ${n}`)));

    const doubled = pairs.filter(([a, b]) => a !== b).length;
    console.log(
      `Idempotency-Key repeated in the other region after lag + 500 ms: replayed; at once (within the lag): ${doubled} of ${trials} made a second pet (bound: one per region)`,
    );
    // Each region replays its own pet from then on: never a third.
    expect(later.map(({ body }) => (body as { id: number }).id)).toEqual(pairs.map(([a]) => a));
  }, 120_000);

  it('lists a pet of one region in the other within the lag and 1 s; a full paging once settled sees every pet once', async () => {
    const token = await enterprise(10_000, 100_000);
    const created = await call(regions().url(0), token, '/pets', {
      method: 'POST',
      body: { name: 'Travels', categoryId: 4, status: 'pending' },
    });
    const id = (created.body as { id: number }).id;

    const { ms } = await eventually(async () => {
      const { body } = await call(regions().url(1), token, '/pets?status=pending&limit=100');
      return (body as { id: number }[]).some((pet) => pet.id === id) ? true : undefined;
    });
    await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        call(regions().url(n % 2), token, '/pets', {
          method: 'POST',
          body: { name: `Both ${n}`, categoryId: 4 },
        }),
      ),
    );
    await eventually(async () =>
      (await regions().replication()).pending === 0 ? true : undefined,
    );
    const [home = [], other = []] = await Promise.all(
      [0, 1].map((at) => pageAll(regions().url(at), token)),
    );

    console.log(
      `a pet created in the home region listed in the other after ${Math.round(ms)} ms (bound ${LAG_MS + 1000} ms and the index's lag); full pagings: ${home.length} and ${other.length} pets, each once`,
    );
    expect(other).toEqual(home);
    expect(new Set(home).size).toBe(home.length);
    expect(home).toContain(id);
  }, 60_000);
});
