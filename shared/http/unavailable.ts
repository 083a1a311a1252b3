/**
 * The answer for a store that failed or did not answer in time: 503 `service_unavailable` with
 * `Retry-After`, never a hang and never a 500, which stays for bugs.
 */
import { ApiError } from './http-errors.ts';

/** `Retry-After` of a 503, in seconds: long enough for a restarted store or a throttle to clear. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * 503 `service_unavailable` with `Retry-After: SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS`.
 *
 * @param message What failed and, for a write, whether it may still have happened.
 * @param cause The store's error, for the logs.
 */
export function serviceUnavailable(message: string, cause?: unknown): ApiError {
  return new ApiError(
    'service_unavailable',
    `${message} Retry after ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
    { headers: { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) }, cause },
  );
}
