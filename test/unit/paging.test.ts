/**
 * Pages of a list read in order (shared/paging.ts): ties of the sort key, an id's items split
 * across the reads, and the cursor of a page's last, so that a walk lists each id exactly once.
 */
import { describe, expect, it } from 'vitest';
import { decodePosition, encodePosition, orderedPage } from '../../shared/paging.ts';

/** Rows of keys: `[createdAt, keyId]`, a rolled key's two rows side by side. */
type Row = readonly [string, string];

/** The rows in batches of `size`, as Query pages give them (ties in any order). */
async function* batches(rows: readonly Row[], size: number) {
  for (let at = 0; at < rows.length; at += size) yield rows.slice(at, at + size);
}

const position = ([sort, id]: Row) => ({ sort, id });

/** Every page of `rows`, `limit` ids a page, read `size` rows at a time: the ids of each page. */
async function walk(rows: readonly Row[], limit: number, size: number) {
  const pages: string[][] = [];
  let after: ReturnType<typeof decodePosition>;
  do {
    const page = await orderedPage(batches(rows, size), position, limit, after);
    pages.push([...new Set(page.items.map(([, id]) => id))]);
    after = page.next && decodePosition(encodePosition(page.next));
  } while (after);
  return pages;
}

describe('ordered pages', () => {
  it("keeps an id's rows together and lists each id once, however the reads split them", async () => {
    const rows: Row[] = [
      ['t1', 'a'],
      ['t2', 'b'],
      ['t2', 'b'],
      ['t3', 'd'],
      ['t3', 'c'],
      ['t3', 'd'],
      ['t4', 'e'],
    ];

    for (const size of [1, 2, 3, 7]) {
      expect(await walk(rows, 2, size)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    }
  });

  it('reads on past the page while items tie with its last: none of them is lost', async () => {
    const rows: Row[] = [
      ['t1', 'b'],
      ['t1', 'c'],
      ['t1', 'd'],
      ['t1', 'a'],
      ['t2', 'e'],
    ];

    expect(await walk(rows, 2, 3)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('gives no next page after the last, even a full one', async () => {
    const page = await orderedPage(
      batches(
        [
          ['t1', 'a'],
          ['t2', 'b'],
        ],
        5,
      ),
      position,
      2,
    );

    expect(page.next).toBeUndefined();
  });

  it('finds no position in a cursor it did not give', () => {
    expect(decodePosition('not a cursor')).toBeUndefined();
    expect(decodePosition(Buffer.from('[1,2]').toString('base64url'))).toBeUndefined();
  });
});
