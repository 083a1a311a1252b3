/**
 * `PetstoreClient`: each operation of the API over `fetch`, with safe retries, `Link` paging,
 * parsed rate-limit state and typed errors. Works in Node 20+ and browsers (fetch,
 * AbortSignal.any, crypto.randomUUID). Options and rationale: docs/client.md.
 */
import { IDEMPOTENCY_KEY_HEADER, type ListPetsQuery, type NewPet, PATHS, type Pet } from './api.ts';
import type {
  CallOptions,
  CreatedPet,
  CreatePetOptions,
  ListPetsRequest,
  PetPage,
  PetstoreClientOptions,
  PetstoreResult,
} from './calls.ts';
import { linkTarget } from './headers.ts';
import { allPets, pages } from './paging.ts';
import { Transport } from './transport.ts';

/** What an Idempotency-Key may be (docs/openapi.yaml, parameter IdempotencyKey). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The official client of the Petstore API (docs/openapi.yaml).
 *
 * Every call resolves to a {@link PetstoreResult} or rejects with a `PetstoreError` (or, when
 * its `signal` aborts, with the signal's reason). Calls are retried as `isRetryable` allows,
 * waiting as `backoffDelay` says (retry.ts); while the API has asked to wait after a 429
 * `rate_limited`, this client's other retrying calls wait too, so that they do not add refused
 * requests towards a ban.
 *
 * @example
 * const petstore = new PetstoreClient({ baseUrl, apiKey });
 * const { data: pet } = await petstore.createPet({ name: 'Rex', categoryId: 1 });
 * for await (const pet of petstore.pets.all({ status: 'available' })) console.log(pet.name);
 */
export class PetstoreClient {
  /** Paging helpers of listPets. */
  readonly pets = {
    /**
     * Every pet, page after page, following each page's `Link` rel="next".
     *
     * @param query `status` filter and `pageSize` (listPets' `limit`, 1 to 100; @default 100).
     * @throws PetstoreError from the page that failed (after its retries).
     */
    all: (
      query: { status?: ListPetsQuery['status']; pageSize?: number } = {},
      options?: CallOptions,
    ): AsyncGenerator<Pet, void, undefined> => allPets(this, query, options),
    /**
     * Every page of listPets from `request`, each with its `next` link.
     *
     * @throws PetstoreError from the page that failed (after its retries).
     */
    pages: (request: ListPetsRequest = {}, options?: CallOptions): AsyncGenerator<PetPage> =>
      pages(this, request, options),
  };

  private readonly baseUrl: URL;
  private readonly transport: Transport;

  /**
   * @param options See {@link PetstoreClientOptions}.
   * @throws TypeError when `baseUrl` is not an absolute URL.
   */
  constructor(options: PetstoreClientOptions) {
    this.baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.transport = new Transport(options, this.baseUrl);
  }

  /**
   * listPets: one page of pets in ascending id, at most `limit` of them.
   *
   * @param request `{ status, limit }` for the first page, or `{ next }` with a page's `next`.
   * @returns The page, with the link to the next one.
   * @throws PetstoreError, e.g. `invalid_parameter` (400); TypeError when `next` is not a link of
   *   this API (the key is never sent elsewhere).
   */
  async listPets(request: ListPetsRequest = {}, options?: CallOptions): Promise<PetPage> {
    let url: URL;
    if ('next' in request) {
      url = new URL(request.next, this.baseUrl);
      if (url.origin !== this.baseUrl.origin || !url.pathname.startsWith(this.baseUrl.pathname)) {
        throw new TypeError(`Not a link of this API: ${request.next}`);
      }
    } else {
      url = this.url(PATHS.pets);
      if (request.limit !== undefined) url.searchParams.set('limit', String(request.limit));
      if (request.status !== undefined) url.searchParams.set('status', request.status);
    }
    const result = await this.transport.call<Pet[]>(
      { operation: 'listPets', method: 'GET', url, headers: {}, idempotent: true },
      options,
    );
    return { ...result, next: linkTarget(result.headers, 'next', url.href) };
  }

  /**
   * createPet: stores a new pet. Every attempt sends the same `Idempotency-Key`, so a retried
   * create leaves exactly one pet (a repeat is answered with the first pet, `replayed: true`).
   *
   * @throws PetstoreError, e.g. `invalid_body` (400), `idempotency_key_reused` (422); TypeError
   *   when `idempotencyKey` is not 1 to 255 visible ASCII characters, or is `false` while
   *   retries are on.
   */
  async createPet(pet: NewPet, options: CreatePetOptions = {}): Promise<CreatedPet> {
    const { idempotencyKey = crypto.randomUUID() } = options;
    if (idempotencyKey === false && options.retry !== false) {
      throw new TypeError(
        'A createPet without an Idempotency-Key cannot be retried: pass retry: false',
      );
    }
    if (idempotencyKey !== false && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new TypeError('idempotencyKey must be 1 to 255 visible ASCII characters');
    }
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (idempotencyKey !== false) {
      // The draft's form: a Structured Field string.
      headers[IDEMPOTENCY_KEY_HEADER] = `"${idempotencyKey.replace(/[\\"]/g, '\\$&')}"`;
    }
    const result = await this.transport.call<Pet>(
      {
        operation: 'createPet',
        method: 'POST',
        url: this.url(PATHS.pets),
        headers,
        body: JSON.stringify(pet),
        idempotent: idempotencyKey !== false,
      },
      options,
    );
    return { ...result, idempotencyKey: idempotencyKey === false ? undefined : idempotencyKey };
  }

  /**
   * getPet: one pet by id. Its answers carry the deprecation headers, which
   * {@link PetstoreClientOptions.onDeprecation} is told of once.
   *
   * @deprecated The API removes getPet on 5 December 2030; use listPets with `status`.
   * @throws PetstoreError, e.g. `pet_not_found` (404).
   */
  async getPet(petId: number, options?: CallOptions): Promise<PetstoreResult<Pet>> {
    const url = this.url(PATHS.pet.replace('{petId}', encodeURIComponent(String(petId))));
    return this.transport.call(
      { operation: 'getPet', method: 'GET', url, headers: {}, idempotent: true },
      options,
    );
  }

  /** `path` (relative to the document's paths) under the base URL. */
  private url(path: string): URL {
    return new URL(path.slice(1), this.baseUrl);
  }
}
