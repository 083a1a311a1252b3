/** The one mapping from errors to the Error answers of the public, admin and portal APIs. */
import type * as audit from '../audit/audit-errors.ts';
import type * as events from '../events/event-errors.ts';
import type * as idempotency from '../idempotency/idempotency-errors.ts';
import type * as keys from '../keys/key-errors.ts';
import { logger } from '../logger.ts';
import type * as pets from '../pets/pet-errors.ts';
import type { InvalidLimitsError } from '../plans.ts';
import type * as portal from '../portal/portal-errors.ts';
import type * as rateLimit from '../rate-limit/rate-limit-errors.ts';
import type * as secretScanning from '../secret-scanning/secret-scanning-errors.ts';
import { type StoreUnavailableError, storeErrorOf } from '../store-errors.ts';
import { type AnyErrorCode, ApiError } from './http-errors.ts';
import { serviceUnavailable } from './unavailable.ts';

/** The errors each of `Modules` exports. */
type ErrorsOf<Modules> = Modules extends unknown
  ? InstanceType<Extract<Modules[keyof Modules], new (...args: never[]) => Error>>
  : never;

/** Every domain error class. */
type DomainError =
  | ErrorsOf<
      | typeof audit
      | typeof events
      | typeof idempotency
      | typeof keys
      | typeof pets
      | typeof portal
      | typeof rateLimit
      | typeof secretScanning
    >
  | InvalidLimitsError
  | StoreUnavailableError;

/**
 * Each domain error's code by its class's `name` (types only imported: a bundle carries the errors
 * it throws); `retryAfterSeconds` becomes `Retry-After`, `challenge` `WWW-Authenticate`.
 */
const CODE_OF: { readonly [E in DomainError as E['name']]: AnyErrorCode } = {
  InvalidCursorError: 'invalid_parameter',
  PetNotFoundError: 'pet_not_found',
  InvalidIdempotencyKeyError: 'invalid_idempotency_key',
  IdempotencyKeyReusedError: 'idempotency_key_reused',
  IdempotencyInProgressError: 'idempotency_request_in_progress',
  RateLimitedError: 'rate_limited',
  KeyBannedError: 'api_key_temporarily_banned',
  KeyNotFoundError: 'key_not_found',
  KeyRevokedError: 'key_revoked',
  KeyChangedError: 'key_changed',
  InvalidLimitsError: 'invalid_body',
  InvalidScopesError: 'invalid_body',
  InvalidAuditWindowError: 'invalid_parameter',
  KeyLimitReachedError: 'key_limit_reached',
  InvalidListCursorError: 'invalid_parameter',
  InvalidIdTokenError: 'unauthorized',
  EmailNotVerifiedError: 'email_not_verified',
  StoreUnavailableError: 'service_unavailable',
  ApiGatewayStepError: 'service_unavailable',
  EventsUnavailableError: 'service_unavailable',
  PublicKeysUnavailableError: 'service_unavailable',
};

/** What failed, as a 503's log line names it. */
const UNAVAILABLE: Partial<Record<DomainError['name'], string>> = {
  StoreUnavailableError: 'Store',
  ApiGatewayStepError: 'API Gateway',
  EventsUnavailableError: 'Event bus',
  PublicKeysUnavailableError: "GitHub's public key list",
};

function isDomainError(error: unknown): error is DomainError {
  return error instanceof Error && Object.hasOwn(CODE_OF, error.name);
}

/** The answer of an ApiError or a domain error (`retryAfterSeconds`: `Retry-After`); else `undefined` (a bug: 500). */
export function apiErrorOf(thrown: unknown): ApiError | undefined {
  if (thrown instanceof ApiError) return thrown;
  const error = storeErrorOf(thrown);
  if (!isDomainError(error)) return undefined;
  const code = CODE_OF[error.name];
  if (code === 'service_unavailable') {
    logger.warn(`${UNAVAILABLE[error.name]} unavailable`, { error: error.cause ?? error });
    return serviceUnavailable(error.message, error);
  }
  const headers = {
    ...('retryAfterSeconds' in error && { 'Retry-After': String(error.retryAfterSeconds) }),
    ...('challenge' in error && { 'WWW-Authenticate': error.challenge }),
  };
  return new ApiError(code, error.message, { headers, cause: error });
}
