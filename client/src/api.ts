/**
 * The API's shapes, paths and header names, all taken from the types that openapi-typescript
 * generates from docs/openapi.yaml (`npm run generate`): a change to the document that breaks the
 * client fails its build here.
 */
import type { components, operations, paths } from './generated/petstore-api.ts';

/** A pet as the API returns it. */
export type Pet = components['schemas']['Pet'];
/** A pet to create (`status` defaults to `available`). */
export type NewPet = components['schemas']['NewPet'];
/** `available`, `pending` or `sold`. */
export type PetStatus = components['schemas']['PetStatus'];
/** Every `code` of the API's Error body (docs/openapi.yaml, "Errors"). */
export type ApiErrorCode = components['schemas']['Error']['code'];
/** The query of listPets a caller may set: `cursor` comes only from a `Link`, never from code. */
export type ListPetsQuery = Omit<
  NonNullable<operations['listPets']['parameters']['query']>,
  'cursor'
>;

/** The document's operationIds (`listPets`, …). */
export type OperationId = keyof operations;

/** A path item's methods other than its shared `parameters`. */
type MethodKey<Path> = Exclude<keyof Path, 'parameters'>;
/** The HTTP methods the document's paths serve, upper-case (`GET`, `POST`, …). */
export type HttpMethod = {
  [Path in keyof paths]: {
    [Method in MethodKey<paths[Path]>]-?: undefined extends paths[Path][Method]
      ? never
      : Uppercase<Method & string>;
  }[MethodKey<paths[Path]>];
}[keyof paths];
/** The named headers of a response (its `[name: string]: unknown` index signature left out). */
type HeaderNames<Response> = Response extends { headers: infer Headers }
  ? keyof { [Name in keyof Headers as string extends Name ? never : Name]: Headers[Name] }
  : never;
type ResponseHeaderName = {
  [Id in OperationId]: HeaderNames<operations[Id]['responses'][keyof operations[Id]['responses']]>;
}[OperationId];

/** Paths of the operations, relative to the base URL. */
export const PATHS = {
  pets: '/pets',
  pet: '/pets/{petId}',
} as const satisfies Record<string, keyof paths>;

/** Response headers the client reads, each checked against the document's responses. */
export const HEADERS = {
  link: 'Link',
  retryAfter: 'Retry-After',
  replayed: 'Idempotent-Replayed',
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
  policy: 'RateLimit-Policy',
  state: 'RateLimit',
  deprecation: 'Deprecation',
  sunset: 'Sunset',
} as const satisfies Record<string, ResponseHeaderName>;

/** The request header of createPet that names the create (draft-ietf-httpapi-idempotency-key-header-07). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key' satisfies keyof NonNullable<
  operations['createPet']['parameters']['header']
>;

/**
 * The request id of every answer, API Gateway's own or a function's (the local gateway sends it
 * too). Not in the document: API Gateway adds it to every response of a REST API.
 */
export const REQUEST_ID_HEADER = 'x-amzn-RequestId';
