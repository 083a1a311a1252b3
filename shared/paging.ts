/** Pages of a list read in order (an owner's keys, audit entries), listPets's way (docs/api.md). */
import * as v from 'valibot';
import { PAGE_LIMIT } from './pets/parameters.ts';

const LIMIT_MESSAGE = `must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}`;

/** A list's paging parameters, listPets's: `limit` (1 to 100, default 20) and `cursor`. */
export const PAGE_QUERY_ENTRIES = {
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d+$/, LIMIT_MESSAGE),
      v.transform(Number),
      v.minValue(PAGE_LIMIT.min, LIMIT_MESSAGE),
      v.maxValue(PAGE_LIMIT.max, LIMIT_MESSAGE),
    ),
    String(PAGE_LIMIT.default),
  ),
  cursor: v.optional(v.pipe(v.string(), v.nonEmpty('must not be empty'))),
};

/** Where an item stands: by `sort` (e.g. an ISO 8601 time), then `id` (one id's items together). */
export interface PagePosition {
  readonly sort: string;
  readonly id: string;
}

/** A page's items and, when more follow, the position of its last. */
export interface OrderedPage<T> {
  readonly items: T[];
  readonly next?: PagePosition;
}

/** Negative, zero or positive as `a` stands before, with or after `b`. */
function compare(a: PagePosition, b: PagePosition): number {
  if (a.sort !== b.sort) return a.sort < b.sort ? -1 : 1;
  if (a.id === b.id) return 0;
  return a.id < b.id ? -1 : 1;
}

/**
 * The first `limit` ids after `after` of `batches`, which yield items in ascending `sort`
 * (ties of `sort` in any order, as a DynamoDB index gives them), with every item of those ids.
 * Reading stops once more than `limit` ids are read and an item stands past the last of the
 * page's `sort`: every item tied with the page's last has been read by then.
 *
 * @param after The position of the previous page's last item. @default - the start
 * @returns The page's items in order, and `next` when at least one more id follows.
 */
export async function orderedPage<T>(
  batches: AsyncIterable<readonly T[]>,
  positionOf: (item: T) => PagePosition,
  limit: number,
  after?: PagePosition,
): Promise<OrderedPage<T>> {
  const read: { item: T; position: PagePosition }[] = [];
  const ids = new Set<string>();
  for await (const batch of batches) {
    for (const item of batch) {
      const position = positionOf(item);
      if (after && compare(position, after) <= 0) continue;
      read.push({ item, position });
      ids.add(position.id);
    }
    if (ids.size > limit && pastLastOfPage(read, limit)) break;
  }
  read.sort((a, b) => compare(a.position, b.position));
  const pageIds = new Set<string>();
  const items: T[] = [];
  let last: PagePosition | undefined;
  for (const { item, position } of read) {
    if (!pageIds.has(position.id) && pageIds.size === limit) {
      return { items, ...(last && { next: last }) };
    }
    pageIds.add(position.id);
    items.push(item);
    last = position;
  }
  return { items };
}

/** Whether an item read stands at a greater `sort` than the `limit`-th id's. */
function pastLastOfPage(read: readonly { position: PagePosition }[], limit: number): boolean {
  const positions = [...new Map(read.map(({ position }) => [position.id, position])).values()];
  positions.sort(compare);
  const lastOfPage = positions[limit - 1];
  return lastOfPage !== undefined && positions.some(({ sort }) => sort > lastOfPage.sort);
}

/** `position` as an opaque cursor (base64url JSON, unsigned: it only says where a list goes on). */
export function encodePosition(position: PagePosition): string {
  return Buffer.from(JSON.stringify([position.sort, position.id])).toString('base64url');
}

/** The position a cursor of {@link encodePosition} holds, or `undefined` when it holds none. */
export function decodePosition(cursor: string): PagePosition | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2) {
      const [sort, id] = value as unknown[];
      if (typeof sort === 'string' && typeof id === 'string') return { sort, id };
    }
  } catch {}
  return undefined;
}
