/** A failed or slow store's answer: 503 with `Retry-After`, never a hang, never a 500. */
import { ApiError } from './http-errors.ts';

/** `Retry-After` of a 503, in seconds: long enough for a restarted store or a throttle to clear. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** @param message What failed, and whether a write may have happened. @param cause For the logs. */
export function serviceUnavailable(message: string, cause?: unknown): ApiError {
  return new ApiError(
    'service_unavailable',
    `${message} Retry after ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
    { headers: { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) }, cause },
  );
}
