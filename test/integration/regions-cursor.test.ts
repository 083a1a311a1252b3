/**
 * Same secrets in every region (issue 41, item 3) on the two-region local stack: a `Link` (and
 * its cursor) that listPets issues in one region lists the next page in the other, as Secrets
 * Manager's replica of the cursor key gives every region of a deployed stage the same key. Both
 * regions here get the stack's one `CURSOR_KEY`; a region with a key of its own answers the other
 * region's cursor 400 `invalid_parameter` ("was altered or not issued by this service").
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../../shared/pets/schemas.ts';
import { call, eventually, pageAll, twoRegionsOfThisFile } from '../support/two-regions.ts';

const regions = twoRegionsOfThisFile();
let token: string;
/** The ids of the pets this file created, ascending (the list's order). */
let created: number[];

beforeAll(async () => {
  token = await regions().issueKey({ plan: 'pro', owner: 'cursor' });
  created = [];
  for (const n of [1, 2, 3, 4, 5]) {
    const { status, body } = await call(regions().url(0), token, '/pets', {
      method: 'POST',
      body: { name: `Cursor ${n}`, categoryId: 1 },
    });
    expect(status).toBe(201);
    created.push((body as Pet).id);
  }
  created.sort((a, b) => a - b);
  // Every pet replicated: the other region lists them all.
  await eventually(async () => {
    const listed = await pageAll(regions().url(1), token);
    return created.every((id) => listed.includes(id)) ? listed : undefined;
  });
}, 60_000);

/** A page of two pets of region `at` at `path` (below the stage): its ids and its next path. */
async function page(at: number, path: string) {
  const { status, body, headers } = await call(regions().url(at), token, path);
  const next = headers.get('Link')?.match(/^<\/v1(\/pets\?[^>]*)>; rel="next"$/)?.[1];
  return { status, body, ids: status === 200 ? (body as Pet[]).map(({ id }) => id) : [], next };
}

describe('a cursor of one region in the other', () => {
  it.each([
    { from: 0, to: 1, issuer: 'the home region', follower: 'the other region' },
    { from: 1, to: 0, issuer: 'the other region', follower: 'the home region' },
  ])('follows a Link issued in $issuer to the next page in $follower', async ({ from, to }) => {
    const first = await page(from, '/pets?limit=2');
    expect(first.ids).toEqual(created.slice(0, 2));
    expect(first.next).toMatch(/^\/pets\?limit=2&cursor=[\w-]+$/);

    const second = await page(to, first.next ?? '');

    expect(second).toMatchObject({ status: 200, ids: created.slice(2, 4) });
    const third = await page(from, second.next ?? '');
    expect(third).toMatchObject({ status: 200, ids: created.slice(4), next: undefined });
  });
});
