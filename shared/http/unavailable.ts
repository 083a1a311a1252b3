/**
 * The answer for a dependency that failed or did not answer in time (the pets table, the
 * idempotency records): 503 `service_unavailable` with `Retry-After`, never a hang and never a
 * 500, which stays for bugs.
 */
import { ApiError } from './errors.ts';

/** `Retry-After` of a 503, in seconds: long enough for a restarted store or a throttle to clear. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

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

/**
 * Whether an error of a DynamoDB call means the store is unavailable (down, unreachable, too
 * slow, throttling, or a table gone), as opposed to a bug such as a malformed request.
 */
export function isDependencyFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, $fault } = error as { code?: string; $fault?: string };
  return (
    UNAVAILABLE_ERROR_NAMES.has(error.name) ||
    (code !== undefined && NETWORK_ERROR_CODES.has(code)) ||
    $fault === 'server'
  );
}

/**
 * 503 `service_unavailable` with `Retry-After: SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS`.
 *
 * @param message What failed and, for a write, whether it may still have happened.
 * @param cause The dependency's error, for the logs.
 */
export function serviceUnavailable(message: string, cause?: unknown): ApiError {
  return new ApiError(
    'service_unavailable',
    `${message} Retry after ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
    { headers: { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) }, cause },
  );
}
