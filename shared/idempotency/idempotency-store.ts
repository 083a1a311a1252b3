/** The IdempotencyStore port, in the shape of Powertools' idempotency utility (docs/idempotency.md). */

/** How long a record is kept, in seconds: 24 hours (a retry after that creates anew). */
export const IDEMPOTENCY_RECORD_TTL_SECONDS = 86_400;

/** The answer kept in a completed record, replayed to every repeat of the request. */
export interface StoredResponse {
  readonly statusCode: number;
  /** Headers to replay besides Content-Type, e.g. `Location`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body as sent. */
  readonly body: string;
}

/** The right to run a request: held by one attempt until `lockedUntil`. */
export interface IdempotencyLock {
  /** Record id, `<keyId>#<Idempotency-Key>`. */
  readonly id: string;
  /** Random; only the attempt that wrote it may complete or release the record. */
  readonly token: string;
}

/** What {@link IdempotencyStore.begin} found. */
export type IdempotencyBegin =
  /** No record (or a lapsed lock of the same request): this attempt runs the request. */
  | { readonly outcome: 'run'; readonly lock: IdempotencyLock }
  /** The request completed before: answer with its response. */
  | { readonly outcome: 'replay'; readonly response: StoredResponse }
  /** Another attempt of the same request holds the lock until `lockedUntil` (epoch ms). */
  | { readonly outcome: 'in_progress'; readonly lockedUntil: number }
  /** The key was used with another request body. */
  | { readonly outcome: 'mismatch' };

/** Options of {@link IdempotencyStore.begin}. */
export interface BeginOptions {
  /** Now, epoch milliseconds. */
  readonly nowMs: number;
  /** Epoch milliseconds until which this attempt holds the lock: the invocation's own deadline. */
  readonly lockedUntil: number;
  readonly signal?: AbortSignal;
}

/** A record's completion, written in the same atomic write as the effect: both land or neither. */
export interface RecordCompletion<TResult> {
  /** The lock of the attempt; the write is refused (IdempotencyLockLostError) once it is lost. */
  readonly lock: IdempotencyLock;
  /** The response to keep, from the effect's result. */
  readonly response: (result: TResult) => StoredResponse;
}

/** Idempotency records. Completing one is part of the effect's own write (see RecordCompletion). */
export interface IdempotencyStore {
  /**
   * Takes the lock of a request (no live record, or a lapsed lock of the same request), or says why not.
   * @param id `<keyId>#<Idempotency-Key>`.
   * @param fingerprint SHA-256 of the parsed request body (`requestFingerprint`).
   * @throws StoreUnavailableError when the records cannot be read or written.
   */
  begin(id: string, fingerprint: string, options: BeginOptions): Promise<IdempotencyBegin>;
  /**
   * Deletes the record of a failed request (a retry then runs at once) while `lock` holds it.
   *
   * @throws StoreUnavailableError when the records cannot be written.
   */
  release(lock: IdempotencyLock, signal?: AbortSignal): Promise<void>;
}
