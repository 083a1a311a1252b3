/**
 * Paging of listPets: page after page by following each page's `Link` rel="next", never by
 * building a cursor (docs/openapi.yaml, "Pagination").
 */
import type { ListPetsQuery, Pet } from './api.ts';
import type { CallOptions, ListPetsRequest, PetPage } from './calls.ts';

/** What pages: a client's listPets. */
interface Lister {
  listPets(request: ListPetsRequest, options?: CallOptions): Promise<PetPage>;
}

/**
 * Every page of listPets from `request`, each with its `next` link, up to the last page.
 *
 * @throws PetstoreError from the page that failed (after its retries).
 */
export async function* pages(
  client: Lister,
  request: ListPetsRequest,
  options?: CallOptions,
): AsyncGenerator<PetPage> {
  let page = await client.listPets(request, options);
  yield page;
  while (page.next !== undefined) {
    page = await client.listPets({ next: page.next }, options);
    yield page;
  }
}

/**
 * Every pet with `status` (all when undefined), in ascending id, read `pageSize` at a time.
 *
 * @throws PetstoreError from the page that failed (after its retries).
 */
export async function* allPets(
  client: Lister,
  { status, pageSize = 100 }: { status?: ListPetsQuery['status']; pageSize?: number },
  options?: CallOptions,
): AsyncGenerator<Pet, void, undefined> {
  for await (const page of pages(client, { status, limit: pageSize }, options)) yield* page.data;
}
