/** Errors of idempotent execution; `shared/http/error-mapping.ts` answers them. */

/** The `Idempotency-Key` header is malformed or repeated; the message says how. */
export class InvalidIdempotencyKeyError extends Error {
  override readonly name = 'InvalidIdempotencyKeyError';
}

/** The key was used before with another request body. */
export class IdempotencyKeyReusedError extends Error {
  override readonly name = 'IdempotencyKeyReusedError';
}

/** Another write of the same key is in flight; nothing of this attempt was written (HTTP 409). */
export class IdempotencyInProgressError extends Error {
  override readonly name = 'IdempotencyInProgressError';

  /** @param retryAfterSeconds Whole seconds after which to retry (at least 1). */
  constructor(
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(
      `A request with this Idempotency-Key is still being processed; retry after ${retryAfterSeconds} ${retryAfterSeconds === 1 ? 'second' : 'seconds'}.`,
      options,
    );
  }
}
