/**
 * Rehearsal of the one-writer rule on the two-region local stack (issue 40, item 8): ids unique
 * over both regions under concurrent creates, and a mixed load of every kind of write in both
 * regions that ends with no conflict in the model of global tables (every item written in one
 * region only). Figures are printed; assertions are on behaviour, not time.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_PER_DAY, MAX_PER_MINUTE } from '../../shared/plans.ts';
import { TEST_CONTEXT } from '../support/test-keys.ts';
import { call, eventually, pageAll, twoRegionsOfThisFile } from '../support/two-regions.ts';

const regions = twoRegionsOfThisFile();
let unlimited: string;
beforeAll(async () => {
  unlimited = await regions().issueKey({
    plan: 'enterprise',
    owner: 'rehearsal',
    limits: { perMinute: MAX_PER_MINUTE, perDay: MAX_PER_DAY },
  });
}, 60_000);

/** Runs `count` tasks `concurrency` at a time. */
async function pool<T>(count: number, concurrency: number, task: (n: number) => Promise<T>) {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let n = next++; n < count; n = next++) results[n] = await task(n);
    }),
  );
  return results;
}

/** Waits until the model has nothing pending (every write replicated). */
async function settled() {
  return eventually(async () => {
    const figures = await regions().replication();
    return figures.pending === 0 ? figures : undefined;
  });
}

describe('two regions, one writer per item', () => {
  it('gives 2,000 creates split over both regions at 16-way concurrency each 2,000 distinct ids', async () => {
    const created = await Promise.all(
      [0, 1].map((at) =>
        pool(1_000, 16, async (n) => {
          const { status, body } = await call(regions().url(at), unlimited, '/pets', {
            method: 'POST',
            body: { name: `Id ${at}.${n}`, categoryId: 1 },
          });
          expect(status).toBe(201);
          return (body as { id: number }).id;
        }),
      ),
    );

    const ids = created.flat();
    const { value: figures } = await settled();
    console.log(
      `ids: ${new Set(ids).size} distinct of ${ids.length}; region residues mod 16: ${[
        ...new Set(created.map((each) => [...new Set(each.map((id) => id % 16))].join('/'))),
      ].join(
        ', ',
      )}; conflicts ${figures.conflicts.length}, replicated ${figures.replicated} ${JSON.stringify(figures.conflicts.slice(0, 6))}`,
    );
    expect(new Set(ids).size).toBe(2_000);
    expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
    expect(figures.conflicts).toEqual([]);
  }, 300_000);

  it('ends a mixed load of both regions with no conflict, and both regions list the same pets', async () => {
    const ban = await regions().issueKey({
      plan: 'enterprise',
      owner: 'to ban',
      limits: { perMinute: 10, perDay: 1_000 },
    });
    const load = [0, 1].map(async (at) => {
      const url = regions().url(at);
      await pool(60, 8, async (n) => {
        const key = randomUUID();
        const body = { name: `Mixed ${at}.${n}`, categoryId: 2 };
        const keyed = { method: 'POST' as const, body, headers: { 'Idempotency-Key': key } };
        const first = await call(url, unlimited, '/pets', n % 2 ? keyed : { method: 'POST', body });
        expect(first.status).toBe(201);
        if (n % 2) expect((await call(url, unlimited, '/pets', keyed)).status).toBe(201);
        const id = (first.body as { id: number }).id;
        expect((await call(url, unlimited, `/pets/${id}`)).status).toBe(200);
        expect((await call(url, unlimited, '/pets?limit=5&status=available')).status).toBe(200);
      });
      // Hammered in each region (within its usage plan's bucket of 20): refused, then banned.
      for (let n = 0; n < 16; n++) await call(url, ban, '/pets?limit=1');
    });
    const administration = (async () => {
      const keys = regions().keys;
      const { key } = await keys.createKey({ plan: 'free', owner: 'mixed' }, TEST_CONTEXT);
      await keys.setPlan(key.keyId, 'pro', undefined, TEST_CONTEXT);
      await keys.rollKey(key.keyId, 60, TEST_CONTEXT);
      await keys.revokeKey(key.keyId, TEST_CONTEXT);
    })();
    await Promise.all([...load, administration]);

    const { value: figures } = await settled();
    const [home = [], other = []] = await Promise.all(
      [0, 1].map((at) => pageAll(regions().url(at), unlimited)),
    );
    console.log(
      `mixed load: conflicts ${figures.conflicts.length}, replicated ${figures.replicated}; listed ${home.length} in the home region, ${other.length} in the other`,
    );
    expect(figures.conflicts).toEqual([]);
    expect(other).toEqual(home);
    expect(new Set(home).size).toBe(home.length);
    const refused = await call(regions().url(1), ban, '/pets?limit=1');
    expect(refused.body).toMatchObject({ code: 'api_key_temporarily_banned', status: 429 });
  }, 300_000);
});
