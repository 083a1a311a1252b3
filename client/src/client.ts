/**
 * `PetstoreClient`: the API's three operations over `fetch`, with safe retries, `Link` paging,
 * parsed rate-limit state and typed errors. Works in Node 20+ and browsers (fetch,
 * AbortSignal.any, crypto.randomUUID). Options and rationale: docs/client.md.
 */
import {
  HEADERS,
  IDEMPOTENCY_KEY_HEADER,
  type ListPetsQuery,
  type NewPet,
  PATHS,
  type Pet,
  REQUEST_ID_HEADER,
} from './api.ts';
import { PetstoreError } from './errors.ts';
import {
  type DeprecationNotice,
  deprecationNotice,
  linkTarget,
  type RateLimitState,
  rateLimitState,
  retryAfterSeconds,
} from './headers.ts';
import { backoffDelay, DEFAULT_RETRY, isRetryable, type RetryOptions } from './retry.ts';

/** Options of {@link PetstoreClient}. */
export interface PetstoreClientOptions {
  /** The base URL, stage included, e.g. `https://abc123.execute-api.us-east-1.amazonaws.com/v1`. */
  readonly baseUrl: string;
  /** The API key, sent as `Authorization: Bearer <apiKey>`. */
  readonly apiKey: string;
  /**
   * How calls are retried, or `false` to never retry; each call may override it.
   * @default DEFAULT_RETRY
   */
  readonly retry?: Partial<RetryOptions> | false;
  /**
   * Milliseconds one attempt may take before it fails with `timeout` (and may be retried).
   * @default 30_000
   */
  readonly timeoutMs?: number;
  /**
   * Told once per operation and client when an answer carries `Deprecation` or `Sunset` (getPet).
   * @default - a console.warn
   */
  readonly onDeprecation?: (notice: DeprecationNotice) => void;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call, its retries and waits included; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Overrides the client's retry options for this call; `false` sends it once. */
  readonly retry?: Partial<RetryOptions> | false;
}

/**
 * Options of createPet. The Idempotency-Key makes its retries safe, so a create without one is
 * never retried: `idempotencyKey: false` needs `retry: false`.
 */
export type CreatePetOptions =
  | (CallOptions & {
      /**
       * Names this create: 1 to 255 visible ASCII characters. Reuse it to retry the create yourself.
       * @default crypto.randomUUID()
       */
      readonly idempotencyKey?: string;
    })
  | (Omit<CallOptions, 'retry'> & { readonly idempotencyKey: false; readonly retry: false });

/** A successful answer: its body and what its headers say. */
export interface PetstoreResult<T> {
  readonly data: T;
  readonly status: number;
  /** The answer's rate-limit state. */
  readonly rateLimit: RateLimitState;
  /** Whether the answer is the stored first answer of the same create (`Idempotent-Replayed`). */
  readonly replayed: boolean;
  /** The answer's request id (`x-amzn-RequestId`). */
  readonly requestId: string | undefined;
  /** Attempts the call took (1 when it was not retried). */
  readonly attempts: number;
  /** The raw headers. */
  readonly headers: Headers;
}

/** One page of listPets. */
export interface PetPage extends PetstoreResult<Pet[]> {
  /** Absolute URL of the next page (`Link` rel="next"); undefined on the last page. */
  readonly next: string | undefined;
}

/** A created pet, and the key that names its create. */
export interface CreatedPet extends PetstoreResult<Pet> {
  /** The Idempotency-Key sent with every attempt; undefined when the caller opted out. */
  readonly idempotencyKey: string | undefined;
}

/** What `listPets` starts from: a query for the first page, or a page's `next` link. */
export type ListPetsRequest = ListPetsQuery | { readonly next: string };

/** One request as every attempt sends it. */
interface Outgoing {
  readonly operation: 'listPets' | 'createPet' | 'getPet';
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** Sending it again cannot repeat its effect (a GET, or a POST with an Idempotency-Key). */
  readonly idempotent: boolean;
}

/** An answer read whole: status, headers and JSON body (undefined when not JSON). */
interface Answer {
  readonly response: Response;
  readonly body: unknown;
  readonly receivedAt: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** What an Idempotency-Key may be (docs/openapi.yaml, parameter IdempotencyKey). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function isErrorBody(body: unknown): body is { code: PetstoreError['code']; message: string } {
  const candidate = body as { code?: unknown; message?: unknown } | null;
  return typeof candidate?.code === 'string' && typeof candidate.message === 'string';
}

/** The default deprecation hook: one console warning. */
function warnDeprecated({ operation, sunset, successor }: DeprecationNotice): void {
  console.warn(
    `Petstore API: ${operation} is deprecated${sunset ? ` and is removed on ${sunset.toISOString().slice(0, 10)}` : ''}${successor ? `; use ${successor}` : ''}.`,
  );
}

/**
 * The official client of the Petstore API (docs/openapi.yaml).
 *
 * Every call resolves to a {@link PetstoreResult} or rejects with a {@link PetstoreError} (or,
 * when its `signal` aborts, with the signal's reason). Calls are retried as
 * {@link isRetryable} allows, waiting as {@link backoffDelay} says; while the API has asked to
 * wait after a 429 `rate_limited`, this client's other retrying calls wait too, so that they do
 * not add refused requests towards a ban.
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
    ): AsyncGenerator<Pet, void, undefined> => this.allPets(query, options),
    /**
     * Every page of listPets from `request`, each with its `next` link.
     *
     * @throws PetstoreError from the page that failed (after its retries).
     */
    pages: (request: ListPetsRequest = {}, options?: CallOptions): AsyncGenerator<PetPage> =>
      this.pages(request, options),
  };

  private readonly baseUrl: URL;
  private readonly fetch: typeof fetch;
  private readonly warned = new Set<string>();
  /** Until when (performance.now() ms) retrying calls hold back: a 429's `Retry-After`. */
  private pausedUntil = 0;

  /**
   * @param options See {@link PetstoreClientOptions}.
   * @throws TypeError when `baseUrl` is not an absolute URL.
   */
  constructor(private readonly options: PetstoreClientOptions) {
    this.baseUrl = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
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
    const result = await this.call<Pet[]>(
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
    const result = await this.call<Pet>(
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
    return this.call(
      { operation: 'getPet', method: 'GET', url, headers: {}, idempotent: true },
      options,
    );
  }

  private async *pages(request: ListPetsRequest, options?: CallOptions): AsyncGenerator<PetPage> {
    let page = await this.listPets(request, options);
    yield page;
    while (page.next !== undefined) {
      page = await this.listPets({ next: page.next }, options);
      yield page;
    }
  }

  private async *allPets(
    { status, pageSize = 100 }: { status?: ListPetsQuery['status']; pageSize?: number },
    options?: CallOptions,
  ): AsyncGenerator<Pet, void, undefined> {
    for await (const page of this.pages({ status, limit: pageSize }, options)) yield* page.data;
  }

  /** `path` (relative to the document's paths) under the base URL. */
  private url(path: string): URL {
    return new URL(path.slice(1), this.baseUrl);
  }

  /** Sends `request` until it succeeds, fails for good, or the retry budget is spent. */
  private async call<T>(request: Outgoing, options: CallOptions = {}): Promise<PetstoreResult<T>> {
    const retryOption = options.retry ?? this.options.retry;
    const retry =
      retryOption === false
        ? { ...DEFAULT_RETRY, maxAttempts: 1, maxElapsedMs: Number.POSITIVE_INFINITY }
        : { ...DEFAULT_RETRY, ...this.options.retry, ...retryOption };
    const started = performance.now();
    const remaining = () => retry.maxElapsedMs - (performance.now() - started);
    for (let attempt = 1; ; attempt++) {
      const pausedMs = this.pausedUntil - performance.now();
      if (retry.maxAttempts > 1 && pausedMs > 0 && pausedMs < remaining()) {
        await sleep(pausedMs, options.signal);
      }
      const timeoutMs = Math.min(this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS, remaining());
      const outcome = await this.attempt(request, attempt, timeoutMs, options.signal);
      if (!(outcome instanceof PetstoreError)) return this.result<T>(outcome, attempt);
      const error = outcome;
      const delayMs = backoffDelay(attempt, error.retryAfter, retry);
      if (
        attempt >= retry.maxAttempts ||
        !isRetryable(error, request.idempotent) ||
        delayMs >= remaining()
      ) {
        throw error;
      }
      if (error.code === 'rate_limited' && error.retryAfter !== undefined) {
        this.pausedUntil = Math.max(this.pausedUntil, performance.now() + error.retryAfter * 1000);
      }
      retry.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }

  /**
   * One attempt: the answer when it is a 2xx, else its error.
   *
   * @throws The caller's signal's reason when it aborts.
   */
  private async attempt(
    request: Outgoing,
    attempt: number,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
  ): Promise<Answer | PetstoreError> {
    const limitMs = Math.max(1, Math.ceil(timeoutMs));
    const timeout = AbortSignal.timeout(limitMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(request.url, {
        method: request.method,
        headers: {
          Accept: 'application/json',
          Authorization: `Bearer ${this.options.apiKey}`,
          ...request.headers,
        },
        body: request.body,
        signal,
      });
      text = await response.text();
    } catch (cause) {
      callerSignal?.throwIfAborted();
      const timedOut = timeout.aborted;
      return new PetstoreError({
        code: timedOut ? 'timeout' : 'network_error',
        message: timedOut
          ? `No answer within ${limitMs} ms`
          : `The request failed: ${(cause as Error).message}`,
        status: undefined,
        requestId: undefined,
        retryAfter: undefined,
        rateLimit: undefined,
        headers: undefined,
        attempts: attempt,
        cause,
      });
    }
    const receivedAt = Date.now();
    this.noticeDeprecation(request.operation, response.headers);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok && body !== undefined) return { response, body, receivedAt };
    const apiError = isErrorBody(body) ? body : undefined;
    return new PetstoreError({
      code: apiError?.code ?? 'unexpected_response',
      message: apiError?.message ?? `Unexpected answer ${response.status}: ${text.slice(0, 200)}`,
      status: response.status,
      requestId: response.headers.get(REQUEST_ID_HEADER) ?? undefined,
      retryAfter: retryAfterSeconds(response.headers, receivedAt),
      rateLimit: rateLimitState(response.headers, receivedAt),
      headers: response.headers,
      attempts: attempt,
    });
  }

  private result<T>({ response, body, receivedAt }: Answer, attempts: number): PetstoreResult<T> {
    return {
      data: body as T,
      status: response.status,
      rateLimit: rateLimitState(response.headers, receivedAt),
      replayed: response.headers.get(HEADERS.replayed) === 'true',
      requestId: response.headers.get(REQUEST_ID_HEADER) ?? undefined,
      attempts,
      headers: response.headers,
    };
  }

  /** Tells the deprecation hook, once per operation, that an answer carries a deprecation. */
  private noticeDeprecation(operation: string, headers: Headers): void {
    if (this.warned.has(operation)) return;
    const notice = deprecationNotice(headers, operation, this.baseUrl.href);
    if (!notice) return;
    this.warned.add(operation);
    (this.options.onDeprecation ?? warnDeprecated)(notice);
  }
}
