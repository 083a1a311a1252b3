/** Errors of idempotent execution; `shared/http/error-mapping.ts` answers them. */

/** The `Idempotency-Key` header is malformed or repeated; the message says how. */
export class InvalidIdempotencyKeyError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidIdempotencyKeyError';
  }
}

/** The key was used before with another request body. */
export class IdempotencyKeyReusedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** Another attempt of the same request holds its record's lock. */
export class IdempotencyInProgressError extends Error {
  /**
   * @param retryAfterSeconds Whole seconds until the lock lapses (at least 1).
   */
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'IdempotencyInProgressError';
  }
}

/**
 * An effect was refused because its record's lock is no longer this attempt's (it lapsed and
 * another attempt took it): thrown by the store that performs the effect, nothing was written.
 */
export class IdempotencyLockLostError extends Error {
  constructor(options?: ErrorOptions) {
    super('The idempotency lock lapsed and was taken over; nothing was written.', options);
    this.name = 'IdempotencyLockLostError';
  }
}
