/** The one mapping from domain errors to the API's Error answers (code, status, `Retry-After`). */
import {
  IdempotencyInProgressError,
  IdempotencyKeyReusedError,
  InvalidIdempotencyKeyError,
} from '../idempotency/errors.ts';
import { logger } from '../logger.ts';
import { InvalidCursorError, PetNotFoundError } from '../pets/errors.ts';
import { KeyBannedError, RateLimitedError } from '../rate-limit/errors.ts';
import { StoreUnavailableError } from '../store-errors.ts';
import { ApiError, type ErrorCode } from './errors.ts';
import { serviceUnavailable } from './unavailable.ts';

/** Domain errors answered with the error's own message, by code. */
const CODE_OF: readonly (readonly [new (...args: never[]) => Error, ErrorCode])[] = [
  [InvalidCursorError, 'invalid_parameter'],
  [PetNotFoundError, 'pet_not_found'],
  [InvalidIdempotencyKeyError, 'invalid_idempotency_key'],
  [IdempotencyKeyReusedError, 'idempotency_key_reused'],
];

/** Domain errors answered with their message and `Retry-After: retryAfterSeconds`, by code. */
const RETRY_CODE_OF: readonly (readonly [
  new (...args: never[]) => Error & { retryAfterSeconds: number },
  ErrorCode,
])[] = [
  [IdempotencyInProgressError, 'idempotency_request_in_progress'],
  [RateLimitedError, 'rate_limited'],
  [KeyBannedError, 'api_key_temporarily_banned'],
];

/**
 * The Error answer of a thrown error: the ApiError itself or a domain error's answer (a failing
 * store's, as its adapter classified it: `storeErrorOf`); `undefined` for anything else (a bug:
 * the caller answers 500).
 */
export function apiErrorOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    logger.warn('Store unavailable', { error: error.cause ?? error });
    return serviceUnavailable(error.message, error);
  }
  if (!(error instanceof Error)) return undefined;
  for (const [type, code] of CODE_OF) {
    if (error instanceof type) return new ApiError(code, error.message, { cause: error });
  }
  for (const [type, code] of RETRY_CODE_OF) {
    if (error instanceof type) {
      const headers = {
        'Retry-After': String((error as InstanceType<typeof type>).retryAfterSeconds),
      };
      return new ApiError(code, error.message, { headers, cause: error });
    }
  }
  return undefined;
}
