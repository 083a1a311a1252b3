/**
 * The pieces of listPets's sharded reads that need no DynamoDB: the shard of a pet (a hash of its
 * id, spread evenly), the k-way merge by id, and the page cache (expiry of settled and tail pages,
 * least-recently-used eviction within its bound of pets).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { petItem, STATUS_SHARDS, statusShardOf } from '../../shared/dynamodb/pet-item.ts';
import { mergeById } from '../../shared/dynamodb/status-index.ts';
import {
  PageCache,
  pageExpiry,
  REPLICATION_LAG_ALLOWANCE_MS,
  SETTLED_AFTER_MS,
  SETTLED_PAGE_TTL_MS,
  settledAfterMs,
  TAIL_PAGE_TTL_MS,
} from '../../shared/pets/page-cache.ts';
import type { Pet } from '../../shared/pets/schemas.ts';
import { ONE_REGION } from '../../shared/regions.ts';

const pet = (id: number): Pet => ({ id, name: `Pet ${id}`, categoryId: 1, status: 'sold' });
const pets = (...ids: number[]) => ids.map(pet);

/** How many of `ids` land on each shard, shard 0 first. */
function spread(ids: number[]): number[] {
  const counts = Array.from({ length: STATUS_SHARDS }, () => 0);
  for (const id of ids) {
    const shard = Number(statusShardOf('available', id).split('#')[1]);
    counts[shard] = (counts[shard] ?? 0) + 1;
  }
  return counts;
}

describe('statusShardOf', () => {
  it('is <status>#<the first four bytes of SHA-256 of the id, mod 32>, as sha256sum gives it', () => {
    for (const id of [1, 42, 1_000_003, Number.MAX_SAFE_INTEGER]) {
      const hex = createHash('sha256').update(String(id)).digest('hex');

      expect(statusShardOf('pending', id)).toBe(
        `pending#${Number.parseInt(hex.slice(0, 8), 16) % 32}`,
      );
    }
    expect(statusShardOf('available', 42)).toBe('available#20');
  });

  it('spreads 10,000 consecutive ids within 20 % of 312.5 per shard', () => {
    const ids = Array.from({ length: 10_000 }, (_, i) => 5_000_001 + i);

    for (const count of spread(ids)) expect(Math.abs(count - 312.5)).toBeLessThan(63);
  });

  it('spreads ids used only at the start of blocks of 1,024 (where id mod 16 fills 4 shards)', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => 1_024 * Math.floor(i / 4) + (i % 4) + 1);

    expect(new Set(ids.map((id) => id % 16)).size).toBe(4);
    for (const count of spread(ids)) expect(Math.abs(count - 62.5)).toBeLessThan(25);
  });

  it('is what the item of a pet carries, beside createdAt on the given clock', () => {
    expect(petItem(pet(42), Date.UTC(2030, 0, 2))).toEqual({
      ...pet(42),
      statusShard: statusShardOf('sold', 42),
      createdAt: '2030-01-02T00:00:00.000Z',
    });
  });
});

describe('mergeById', () => {
  it('answers the smallest ids of all lists, ascending, each once, stopping at count', () => {
    const merged = mergeById([pets(2, 9, 11), pets(), pets(1, 3, 4, 20), pets(5)], 6);

    expect(merged.map((each) => each.id)).toEqual([1, 2, 3, 4, 5, 9]);
  });

  it('answers every element when the lists hold fewer than count', () => {
    expect(mergeById([pets(7), pets(3, 8)], 10).map((each) => each.id)).toEqual([3, 7, 8]);
    expect(mergeById([], 10)).toEqual([]);
  });
});

describe('pageExpiry', () => {
  const fetchedAt = 1_000_000_000;

  it('keeps a full page whose newest pet is older than the settling time for 10 minutes', () => {
    expect(pageExpiry(fetchedAt, true, fetchedAt - SETTLED_AFTER_MS - 1)).toBe(
      fetchedAt + SETTLED_PAGE_TTL_MS,
    );
  });

  it.each([
    ['a full page whose newest pet is just settling', true, fetchedAt - SETTLED_AFTER_MS],
    ['a short page (the tail), however old', false, 0],
    ['a page whose newest pet has no known creation time', true, Number.NaN],
  ])('keeps %s for one second', (_, full, newest) => {
    expect(pageExpiry(fetchedAt, full, newest)).toBe(fetchedAt + TAIL_PAGE_TTL_MS);
  });
});

describe('settledAfterMs', () => {
  const two = { names: ['us-east-1', 'eu-west-1'], own: 1 };

  it("adds the replication allowance with several regions: another region's smaller ids arrive by replication", () => {
    expect(settledAfterMs(ONE_REGION)).toBe(SETTLED_AFTER_MS);
    expect(settledAfterMs(two)).toBe(SETTLED_AFTER_MS + REPLICATION_LAG_ALLOWANCE_MS);
    expect(settledAfterMs(two)).toBe(26_000);
  });

  it('keeps a full page settled in one region as a tail with two, until the allowance has passed', () => {
    const fetchedAt = 1_000_000_000;
    const newest = fetchedAt - SETTLED_AFTER_MS - 1;

    expect(pageExpiry(fetchedAt, true, newest, settledAfterMs(two))).toBe(
      fetchedAt + TAIL_PAGE_TTL_MS,
    );
    expect(
      pageExpiry(fetchedAt, true, newest - REPLICATION_LAG_ALLOWANCE_MS, settledAfterMs(two)),
    ).toBe(fetchedAt + SETTLED_PAGE_TTL_MS);
  });
});

describe('PageCache', () => {
  it('answers a page until its expiry, then no longer', () => {
    const cache = new PageCache();
    cache.set('sold.0.3', pets(1, 2, 3), 5_000);

    expect(cache.get('sold.0.3', 4_999)).toEqual(pets(1, 2, 3));
    expect(cache.get('sold.0.3', 5_000)).toBeUndefined();
    expect(cache.get('sold.0.3', 4_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('holds at most its bound of pets (a page counting one more), evicting the least recently used', () => {
    const cache = new PageCache(12);
    cache.set('a', pets(1, 2, 3), Number.POSITIVE_INFINITY);
    cache.set('b', pets(4, 5, 6), Number.POSITIVE_INFINITY);
    cache.set('c', pets(7, 8), Number.POSITIVE_INFINITY);
    cache.get('a', 0);

    cache.set('d', pets(9, 10, 11), Number.POSITIVE_INFINITY);

    expect(cache.size).toBe(11);
    expect(cache.get('b', 0)).toBeUndefined();
    expect(cache.get('c', 0)).toEqual(pets(7, 8));
    expect(cache.get('a', 0)).toEqual(pets(1, 2, 3));
    expect(cache.get('d', 0)).toEqual(pets(9, 10, 11));
  });

  it('replaces a page set again under the same key, counting it once', () => {
    const cache = new PageCache();
    cache.set('a', pets(1, 2), 10);
    cache.set('a', pets(1, 2, 3), 20);

    expect(cache.size).toBe(4);
    expect(cache.get('a', 15)).toEqual(pets(1, 2, 3));
  });
});
