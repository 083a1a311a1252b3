/**
 * The shapes of a call: what the client and each call take, and what a call resolves to.
 * Options and rationale: docs/client.md.
 */
import type { ListPetsQuery, Pet } from './api.ts';
import type { DeprecationNotice, RateLimitState } from './headers.ts';
import type { RetryOptions } from './retry.ts';

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
