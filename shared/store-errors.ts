/** StoreUnavailableError, and the one place that tells unavailable stores from bugs. */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';

/** Message of a {@link StoreUnavailableError} whose caller names no other. */
export const STORE_UNAVAILABLE_MESSAGE = 'The store is unavailable or did not answer in time.';

/**
 * A store failed, throttled or did not answer in time: "not now" (HTTP 503).
 * @param message What failed and whether a write may have happened. @default STORE_UNAVAILABLE_MESSAGE
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';

  constructor(message = STORE_UNAVAILABLE_MESSAGE, options?: ErrorOptions) {
    super(message, options);
  }
}

/** `error`, or StoreUnavailableError for what the SDK (`@smithy/core/retry`) or the cases below call unavailable. */
export function storeErrorOf(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !(error instanceof Error)) return error;
  const sdkError = error as Parameters<typeof isTransientError>[0];
  const unavailable =
    isThrottlingError(sdkError) ||
    isTransientError(sdkError) ||
    isServerError(sdkError) ||
    // The invocation's deadline aborted the call: the SDK treats a caller's abort as final.
    error.name === 'AbortError' ||
    // A table that is gone is a lost dependency; the SDK sees only a client error (HTTP 400).
    error.name === 'ResourceNotFoundException' ||
    // Another transaction held the item (HTTP 400): DynamoDB says try again; the SDK has no class for it.
    error.name === 'TransactionConflictException';
  return unavailable ? new StoreUnavailableError(undefined, { cause: error }) : error;
}

/** Runs a store adapter's call. @throws StoreUnavailableError when the store is unavailable. */
export async function unlessUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storeErrorOf(error);
  }
}
