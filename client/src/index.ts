/**
 * @petstore/client: the official TypeScript client of the Petstore API (docs/openapi.yaml).
 * Usage and options: docs/client.md.
 */
export type { ApiErrorCode, ListPetsQuery, NewPet, Pet, PetStatus } from './api.ts';
export type {
  CallOptions,
  CreatedPet,
  CreatePetOptions,
  ListPetsRequest,
  PetPage,
  PetstoreClientOptions,
  PetstoreResult,
} from './calls.ts';
export { PetstoreClient } from './client.ts';
export { PetstoreError, type PetstoreErrorCode } from './errors.ts';
export type {
  DeprecationNotice,
  RateLimitPolicy,
  RateLimitState,
  RateLimitWindow,
} from './headers.ts';
export {
  backoffDelay,
  CREATE_RETRY_FLOOR_MS,
  DEFAULT_RETRY,
  isRetryable,
  type RetryEvent,
  type RetryOptions,
} from './retry.ts';
