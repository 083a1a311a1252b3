/**
 * Paging through listPets over HTTP, on the local gateway and DynamoDB Local: following
 * `Link: <…>; rel="next"` reaches every pet once, in ascending id, with and without `status`;
 * bad cursors are refused; pets created while a client pages come after the pets it started with,
 * each at most once; each page costs a bounded number of reads, as the store counts them. Every answer is checked
 * against docs/openapi.yaml.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countStatusIndexReads } from '../../bench/status-index-reads.ts';
import { PetstoreClient as OfficialClient } from '../../client/src/index.ts';
import { listPetsHandler } from '../../functions/handlers/list-pets.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { newSecretValue } from '../../infra/local/local-secrets.ts';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { STATUS_SHARDS } from '../../shared/dynamodb/pet-item.ts';
import { CursorCodec } from '../../shared/pets/cursor.ts';
import { PET_STATUSES, type Pet, type PetStatus } from '../../shared/pets/schemas.ts';
import { issueToken, type PetstoreClient, petstoreClient } from '../support/api-client.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import { earlyInUtcMinute } from '../support/clock.ts';
import { expectError } from '../support/error-responses.ts';
import { expectConformingResponse, readBody } from '../support/openapi-conformance.ts';

/** Pets of this file's table, created in `beforeAll`: 77 available, 77 pending, 76 sold. */
const PET_COUNT = 230;

let gateway: LocalGateway;
let token: string;
let api: PetstoreClient;
let pets: Pet[] = [];
/** What the pet store of {@link countedListPets} has read. */
const container = createContainer();
/** What the pet store of {@link countedListPets} has read. */
const usage = countStatusIndexReads(container.client);
/** The listPets handler on a pet store whose reads are counted in {@link usage}. */
const countedListPets = listPetsHandler(container);

beforeAll(async () => {
  gateway = await startGateway({ port: 0 });
  token = await issueToken('business');
  api = petstoreClient(gateway.url, token);
  const store = container.pets;
  for (let start = 0; start < PET_COUNT; start += 25) {
    const batch = Array.from({ length: Math.min(25, PET_COUNT - start) }, (_, i) =>
      store.createPet({
        name: `Paged pet ${start + i}`,
        categoryId: 1,
        status: PET_STATUSES[(start + i) % PET_STATUSES.length] ?? 'available',
      }),
    );
    pets.push(...(await Promise.all(batch)));
  }
  pets = pets.sort((a, b) => a.id - b.id);
});
afterAll(() => gateway?.close());

/** One answer of listPets: the status, its body and its Link header. */
interface Answer {
  response: Response;
  body: unknown;
  link: string | null;
}

/** GET `query` on /pets with the key; the answer must conform to docs/openapi.yaml. */
async function listPets(query: string): Promise<Answer> {
  const response = await fetch(`${gateway.url}/pets?${query}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const body = await readBody(response);
  expectConformingResponse({ method: 'GET', path: '/pets' }, response, body);
  return { response, body, link: response.headers.get('link') };
}

/** A page: its pets and its Link header. */
interface Page {
  pets: Pet[];
  link: string | null;
}

/**
 * Follows `rel="next"` from the first page of `query` until an answer has no Link, as a client
 * does: each Link's target resolved against the URL of the page that carried it.
 *
 * @param between Runs after each page but the last (e.g. to create pets while paging).
 */
async function allPages(query: string, between: () => Promise<void> = async () => {}) {
  const pages: Page[] = [];
  let url = `${gateway.url}/pets?${query}`;
  for (let count = 0; count < 50; count++) {
    const { response, body, link } = await listPets(new URL(url).search.slice(1));
    expect(response.status).toBe(200);
    pages.push({ pets: body as Pet[], link });
    if (!link) return pages;
    const target = /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    if (!target) throw new Error(`Link is not one rel="next" reference: ${link}`);
    url = new URL(target, url).href;
    await between();
  }
  throw new Error('more than 50 pages');
}

/** The cursor of a Link header. */
function cursorOf(link: string | null): string {
  const cursor = new URL(/^<([^>]+)>/.exec(link ?? '')?.[1] ?? '', gateway.url).searchParams.get(
    'cursor',
  );
  if (!cursor) throw new Error(`No cursor in ${link}`);
  return cursor;
}

describe('paging through listPets', () => {
  it('lists 230 pets at limit=50 in exactly 5 pages, in ascending id, each once, a Link on all but the last', async () => {
    const pages = await allPages('limit=50');

    expect(pages.map((page) => page.pets.length)).toEqual([50, 50, 50, 50, 30]);
    expect(pages.flatMap((page) => page.pets)).toEqual(pets);
    for (const page of pages.slice(0, -1)) {
      expect(page.link).toMatch(/^<\/v1\/pets\?limit=50&cursor=[\w-]+>; rel="next"$/);
    }
    expect(pages.at(-1)?.link).toBeNull();
  });

  it.each([
    ['available', [50, 27]],
    ['pending', [50, 27]],
    ['sold', [50, 26]],
  ] as const)(
    'lists every %s pet by following rel="next", the status kept in every Link',
    async (status, sizes) => {
      const pages = await allPages(`limit=50&status=${status}`);

      expect(pages.map((page) => page.pets.length)).toEqual(sizes);
      expect(pages.flatMap((page) => page.pets)).toEqual(pets.filter((p) => p.status === status));
      expect(pages[0]?.link).toMatch(
        new RegExp(`^</v1/pets\\?limit=50&status=${status}&cursor=[\\w-]+>; rel="next"$`),
      );
      expect(pages.at(-1)?.link).toBeNull();
    },
  );

  it('gives a full last page no Link (230 pets at limit=46)', async () => {
    const pages = await allPages('limit=46');

    expect(pages.map((page) => [page.pets.length, page.link === null])).toEqual([
      [46, false],
      [46, false],
      [46, false],
      [46, false],
      [46, true],
    ]);
  });

  it('keeps limit 20 in the Link when the client sent none', async () => {
    const { link } = await listPets('status=sold');

    expect(link).toMatch(/^<\/v1\/pets\?limit=20&status=sold&cursor=[\w-]+>; rel="next"$/);
  });

  it('lets a client change limit between pages (typed client, cursor parameter)', async () => {
    const first = await listPets('limit=50');

    const { data, response } = await api.GET('/pets', {
      params: { query: { limit: 10, cursor: cursorOf(first.link) } },
    });

    expect(response.status).toBe(200);
    expect(data).toEqual(pets.slice(50, 60));
    expect(response.headers.get('link')).toMatch(/^<\/v1\/pets\?limit=10&cursor=/);
  });

  it('reads at most limit + 1 items per DynamoDB call: 3 × STATUS_SHARDS Queries a page without status, STATUS_SHARDS with', async () => {
    const cost = async (query: string) => {
      const before = { ...usage };
      const event = authorizedEvent({
        method: 'GET',
        resource: '/pets',
        path: '/pets',
        query: new URLSearchParams(query),
      });
      const result = await countedListPets(event, createLambdaContext('list-pets'));
      expect(result.statusCode).toBe(200);
      return {
        calls: usage.calls - before.calls,
        itemsRead: usage.itemsRead - before.itemsRead,
      };
    };
    const cursor = cursorOf((await listPets('limit=50')).link);
    // 230 pets over 96 shards: no shard holds limit + 1, so each Query reads all of its shard.
    const above = (id: number, status?: PetStatus) =>
      pets.filter((pet) => pet.id > id && (!status || pet.status === status)).length;

    expect(await cost('limit=50')).toEqual({ calls: 3 * STATUS_SHARDS, itemsRead: 230 });
    expect(await cost(`limit=50&cursor=${cursor}`)).toEqual({
      calls: 3 * STATUS_SHARDS,
      itemsRead: above(pets[49]?.id ?? 0),
    });
    expect(await cost('limit=50&status=pending')).toEqual({ calls: STATUS_SHARDS, itemsRead: 77 });
    // The last page of sold pets: 26 left.
    const soldCursor = cursorOf((await listPets('limit=50&status=sold')).link);
    const fiftiethSold = pets.filter((pet) => pet.status === 'sold')[49]?.id ?? 0;
    expect(await cost(`limit=50&status=sold&cursor=${soldCursor}`)).toEqual({
      calls: STATUS_SHARDS,
      itemsRead: above(fiftiethSold, 'sold'),
    });
    expect(above(fiftiethSold, 'sold')).toBe(26);
  });
});

describe('paging with the official client (client/)', () => {
  it('gives each of the 230 pets once, in ascending id, from pets.all', async () => {
    const petstore = new OfficialClient({ baseUrl: gateway.url, apiKey: token });

    const seen: Pet[] = [];
    for await (const pet of petstore.pets.all({ pageSize: 50 })) seen.push(pet);

    expect(seen).toEqual(pets);
  });

  it('gives the pages of a status one by one, each with its next link, the last with none', async () => {
    const petstore = new OfficialClient({ baseUrl: gateway.url, apiKey: token });
    await earlyInUtcMinute(55); // the three pages in one minute window, so `remaining` only drops

    const pages = [];
    for await (const page of petstore.pets.pages({ status: 'sold', limit: 30 })) pages.push(page);

    expect(pages.map((page) => page.data.length)).toEqual([30, 30, 16]);
    expect(pages.flatMap((page) => page.data)).toEqual(pets.filter((pet) => pet.status === 'sold'));
    expect(pages.map((page) => page.next === undefined)).toEqual([false, false, true]);
    expect(pages[0]?.next).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+\/v1\/pets\?limit=30&status=sold&cursor=/,
    );
    expect(pages[0]?.rateLimit.remaining).toBeGreaterThan(pages[2]?.rateLimit.remaining ?? 0);
  });
});

describe('bad cursors', () => {
  /** Cursors of the first page of 50: without status and with status=sold. */
  const issued = { all: '', sold: '' };

  beforeAll(async () => {
    issued.all = cursorOf((await listPets('limit=50')).link);
    issued.sold = cursorOf((await listPets('limit=50&status=sold')).link);
  });

  /** `cursor` with the character at `index` replaced by another base64url character. */
  const altered = (cursor: string, index: number) =>
    `${cursor.slice(0, index)}${cursor[index] === 'A' ? 'B' : 'A'}${cursor.slice(index + 1)}`;

  it.each<[string, () => string]>([
    ['empty', () => 'cursor='],
    ['not base64url', () => `cursor=${encodeURIComponent('abc+/=')}`],
    ['longer than any issued one', () => `cursor=${'A'.repeat(300)}`],
    ['truncated', () => `cursor=${issued.all.slice(0, -3)}`],
    ['altered in its id', () => `cursor=${altered(issued.all, 4)}`],
    ['altered in its signature', () => `cursor=${altered(issued.all, issued.all.length - 5)}`],
    [
      'signed with another key',
      () => `cursor=${new CursorCodec(newSecretValue()).encode({ afterId: 1 })}`,
    ],
    [
      'issued for status=sold, sent with status=pending',
      () => `status=pending&cursor=${issued.sold}`,
    ],
    ['issued for status=sold, sent without status', () => `cursor=${issued.sold}`],
    ['issued without status, sent with status=sold', () => `status=sold&cursor=${issued.all}`],
  ])('answers 400 invalid_parameter naming cursor when it is %s', async (_, query) => {
    const { response, body } = await listPets(`limit=50&${query()}`);

    expectError(response, body, { status: 400, code: 'invalid_parameter', naming: 'cursor' });
  });
});

// Last in the file: it adds pets to the table the tests above count.
describe('paging while pets are created', () => {
  it('shows every pet that existed at the start exactly once, new ones at most once, in ascending id', async () => {
    const created: Pet[] = [];
    const createSome = async () => {
      for (let i = 0; i < 6; i++) {
        const status: PetStatus = PET_STATUSES[i % PET_STATUSES.length] ?? 'available';
        const { data, response } = await api.POST('/pets', {
          body: { name: `New while paging ${created.length}`, categoryId: 2, status },
        });
        expect(response.status).toBe(201);
        if (data) created.push(data);
      }
    };

    const pages = await allPages('limit=50', createSome);
    const listed = pages.flatMap((page) => page.pets);

    // The gateway's listPets keeps tail pages a second (docs/api.md): new pets may be missed.
    expect(created.length).toBeGreaterThanOrEqual(4 * 6);
    expect(listed.slice(0, pets.length)).toEqual(pets);
    const newIds = new Set(created.map((pet) => pet.id));
    expect(listed.slice(pets.length).every((pet) => newIds.has(pet.id))).toBe(true);
    const ids = listed.map((pet) => pet.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
