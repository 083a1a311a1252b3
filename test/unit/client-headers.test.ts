/**
 * What the client reads from headers (client/src/headers.ts): the rate-limit state in both
 * vocabularies, the structured fields parsed as RFC 9651 lists (not by position), `Retry-After`,
 * `Link` targets and deprecation notices; and the client's paging and deprecation hook over a
 * scripted `fetch`.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  deprecationNotice,
  linkTarget,
  rateLimitState,
  retryAfterSeconds,
} from '../../client/src/headers.ts';
import { PetstoreClient } from '../../client/src/index.ts';

const AT = Date.UTC(2030, 0, 1, 10, 30, 15);
const BASE_URL = 'https://api.example/v1/';

/** What getPet answers with (its row's deprecation in infra/routes.ts). */
const GET_PET_DEPRECATION_HEADERS = {
  Deprecation: '@1795219200',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
};

describe('rateLimitState', () => {
  it('reads X-RateLimit-* and both structured fields as the functions send them', () => {
    const state = rateLimitState(
      new Headers({
        'X-RateLimit-Limit': '60',
        'X-RateLimit-Remaining': '59',
        'X-RateLimit-Reset': String(AT / 1000 + 45),
        'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
        RateLimit: '"minute";r=59;t=45, "day";r=999;t=48585',
      }),
      AT,
    );

    expect(state).toEqual({
      limit: 60,
      remaining: 59,
      reset: new Date(AT + 45_000),
      policies: [
        { name: 'minute', quota: 60, windowSeconds: 60, quotaUnit: undefined },
        { name: 'day', quota: 1000, windowSeconds: 86400, quotaUnit: undefined },
      ],
      windows: [
        { name: 'minute', remaining: 59, reset: new Date(AT + 45_000) },
        { name: 'day', remaining: 999, reset: new Date(AT + 48_585_000) },
      ],
    });
  });

  it('parses the fields as RFC 9651 lists: parameters in any order, tokens, unknown parameters, white space', () => {
    const state = rateLimitState(
      new Headers({
        'RateLimit-Policy': 'burst;w=1;qu="requests";q=10;pk=:AQID:,  "hour";q=100',
        RateLimit: '"hour";t=7;x=?1;r=3, (inner list);r=1, "no-remaining";t=1',
      }),
      AT,
    );

    expect(state.policies).toEqual([
      { name: 'burst', quota: 10, windowSeconds: 1, quotaUnit: 'requests' },
      { name: 'hour', quota: 100, windowSeconds: undefined, quotaUnit: undefined },
    ]);
    expect(state.windows).toEqual([{ name: 'hour', remaining: 3, reset: new Date(AT + 7_000) }]);
  });

  it('reads an absent or malformed field as absent, never throwing', () => {
    const state = rateLimitState(
      new Headers({
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Limit': 'sixty',
        'RateLimit-Policy': '"minute";q=60;w=60, ,',
        RateLimit: '"minute";r=1;t=',
      }),
      AT,
    );

    expect(state).toEqual({
      limit: undefined,
      remaining: 0,
      reset: undefined,
      policies: [],
      windows: [],
    });
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    ['45', 45],
    [new Date(AT + 30_000).toUTCString(), 30],
    [new Date(AT - 30_000).toUTCString(), 0],
    ['soon', undefined],
  ])('reads Retry-After %j as %j seconds', (value, seconds) => {
    expect(retryAfterSeconds(new Headers({ 'Retry-After': value }), AT)).toBe(seconds);
  });
});

describe('linkTarget', () => {
  it('finds the link of a relation among several, resolved against the base URL', () => {
    const headers = new Headers({
      Link: '<https://docs.example/a,b>; rel="help", </v1/pets?limit=5&cursor=abc>; title="x;y"; rel="prev next"',
    });

    expect(linkTarget(headers, 'next', BASE_URL)).toBe(
      'https://api.example/v1/pets?limit=5&cursor=abc',
    );
    expect(linkTarget(headers, 'help', BASE_URL)).toBe('https://docs.example/a,b');
    expect(linkTarget(headers, 'last', BASE_URL)).toBeUndefined();
  });
});

describe('deprecationNotice', () => {
  it("reads getPet's Deprecation (an RFC 9651 date), Sunset and successor Link", () => {
    expect(deprecationNotice(new Headers(GET_PET_DEPRECATION_HEADERS), 'getPet', BASE_URL)).toEqual(
      {
        operation: 'getPet',
        deprecatedAt: new Date('2026-11-21T00:00:00Z'),
        sunset: new Date('2030-12-05T00:00:00Z'),
        successor: 'https://api.example/v1/pets',
      },
    );
    expect(deprecationNotice(new Headers(), 'listPets', BASE_URL)).toBeUndefined();
  });
});

/** A fetch that answers each URL with a page of pets and its Link. */
function pagedFetch(pages: Record<string, { ids: number[]; link?: string }>) {
  const urls: string[] = [];
  const fetch = vi.fn(async (input: string | URL | Request) => {
    const url = String(input);
    urls.push(url);
    const page = pages[url];
    if (!page) return new Response('{}', { status: 404 });
    const pets = page.ids.map((id) => ({ id, name: `Pet ${id}`, categoryId: 1, status: 'sold' }));
    return new Response(JSON.stringify(pets), {
      headers: page.link ? { Link: `<${page.link}>; rel="next"` } : {},
    });
  });
  return { fetch: fetch as typeof globalThis.fetch, urls };
}

describe('paging', () => {
  it('pets.all yields every pet of every page, following each rel="next" as given', async () => {
    const { fetch, urls } = pagedFetch({
      'https://api.example/v1/pets?limit=2&status=sold': { ids: [1, 2], link: '/v1/pets?c=x' },
      'https://api.example/v1/pets?c=x': { ids: [3, 4], link: '/v1/pets?c=y' },
      'https://api.example/v1/pets?c=y': { ids: [5] },
    });
    const petstore = new PetstoreClient({ baseUrl: 'https://api.example/v1', apiKey: 'k', fetch });

    const ids: number[] = [];
    for await (const pet of petstore.pets.all({ status: 'sold', pageSize: 2 })) ids.push(pet.id);

    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(urls).toHaveLength(3);
  });

  it('refuses a next link to another origin, so the key is never sent there', async () => {
    const { fetch, urls } = pagedFetch({
      'https://api.example/v1/pets': { ids: [1], link: 'https://elsewhere.example/v1/pets?c=x' },
    });
    const petstore = new PetstoreClient({ baseUrl: 'https://api.example/v1', apiKey: 'k', fetch });

    const first = await petstore.listPets();
    expect(first.next).toBe('https://elsewhere.example/v1/pets?c=x');
    await expect(petstore.listPets({ next: first.next ?? '' })).rejects.toThrow(TypeError);
    expect(urls).toHaveLength(1);
  });
});

describe('deprecation hook', () => {
  it('is told once per client, however many deprecated answers come', async () => {
    const fetch = vi.fn(
      async () =>
        new Response(JSON.stringify({ id: 1, name: 'Rex', categoryId: 1, status: 'sold' }), {
          headers: GET_PET_DEPRECATION_HEADERS,
        }),
    );
    const onDeprecation = vi.fn();
    const petstore = new PetstoreClient({
      baseUrl: BASE_URL,
      apiKey: 'k',
      fetch: fetch as typeof globalThis.fetch,
      onDeprecation,
    });

    await petstore.getPet(1);
    await petstore.getPet(1);

    expect(onDeprecation).toHaveBeenCalledTimes(1);
    expect(onDeprecation).toHaveBeenCalledWith(
      expect.objectContaining({ operation: 'getPet', sunset: new Date('2030-12-05T00:00:00Z') }),
    );
  });
});
