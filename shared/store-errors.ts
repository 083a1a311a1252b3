/** StoreUnavailableError, and the one place that tells unavailable stores from bugs. */

/** Message of a {@link StoreUnavailableError} whose caller names no other. */
export const STORE_UNAVAILABLE_MESSAGE = 'The store is unavailable or did not answer in time.';

/**
 * A store failed, throttled or did not answer before the deadline: "not now" (HTTP 503).
 * @param message What failed and, for a write, whether it may have happened.
 *   @default STORE_UNAVAILABLE_MESSAGE
 */
export class StoreUnavailableError extends Error {
  constructor(message = STORE_UNAVAILABLE_MESSAGE, options?: ErrorOptions) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** Error names of the SDK and DynamoDB that mean "not now", not "never". */
const UNAVAILABLE_ERROR_NAMES = new Set([
  // The invocation's deadline or the SDK's per-attempt timeouts cut the call short.
  'AbortError',
  'TimeoutError',
  // A table that is gone is a lost dependency, not something the client did.
  'ResourceNotFoundException',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionConflictException',
  'InternalServerError',
  'ServiceUnavailable',
]);

/** Node's socket errors: the store is down or unreachable. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** `error` as the domain sees it: StoreUnavailableError for an unavailable store, else itself. */
export function storeErrorOf(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !(error instanceof Error)) return error;
  const { code, $fault } = error as { code?: string; $fault?: string };
  const unavailable =
    UNAVAILABLE_ERROR_NAMES.has(error.name) ||
    (code !== undefined && NETWORK_ERROR_CODES.has(code)) ||
    $fault === 'server';
  return unavailable ? new StoreUnavailableError(undefined, { cause: error }) : error;
}

/**
 * Runs a store adapter's call, turning an unavailable store into a StoreUnavailableError.
 * @throws StoreUnavailableError when the store failed or did not answer in time.
 */
export async function unlessUnavailable<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storeErrorOf(error);
  }
}
