/**
 * The route table: one row per operation of petstore-spec.md ("Endpoints").
 *
 * The CDK stack creates one Lambda function and one API Gateway method per row; the local
 * gateway emulator routes by the same rows; the OpenAPI document is tested against them.
 * Paths are relative to the stage, whose name `v1` is the version segment of the base URL.
 */

/** HTTP methods the API serves. */
export type HttpMethod = 'GET' | 'POST';

/** One operation of the API. */
export interface RouteDefinition {
  /** The spec's operation name, also the OpenAPI operationId. */
  readonly operationId: 'listPets' | 'createPet' | 'getPet';
  readonly method: HttpMethod;
  /** API Gateway resource path, with `{name}` path parameters. */
  readonly path: string;
  /** Handler file, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Construct id of the function in the stack (a contract: changing it replaces the function). */
  readonly constructId: string;
  /** Deprecated operations answer with Deprecation, Sunset and Link headers. */
  readonly deprecated?: boolean;
}

/** Every operation of the API, in the spec's order. */
export const ROUTES: readonly RouteDefinition[] = [
  {
    operationId: 'listPets',
    method: 'GET',
    path: '/pets',
    entry: 'functions/list-pets.ts',
    constructId: 'ListPetsFunction',
  },
  {
    operationId: 'createPet',
    method: 'POST',
    path: '/pets',
    entry: 'functions/create-pet.ts',
    constructId: 'CreatePetFunction',
  },
  {
    operationId: 'getPet',
    method: 'GET',
    path: '/pets/{petId}',
    entry: 'functions/get-pet.ts',
    constructId: 'GetPetFunction',
    deprecated: true,
  },
];

/** The authorizer's handler file, relative to the repository root. */
export const AUTHORIZER_ENTRY = 'functions/authorizer.ts';

/**
 * Timeout of every function (the operations and the authorizer), in seconds. The functions answer
 * 503 before it passes (see `shared/deadline.ts`); the local gateway gives each invocation this
 * much remaining time, as Lambda does.
 */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/**
 * Media types whose request bodies API Gateway passes to the functions base64-encoded: all of them,
 * so that a function sees the bytes a client sent and can refuse a body that is not valid UTF-8
 * (as text, API Gateway would pass it on with the bad bytes already replaced).
 */
export const BINARY_MEDIA_TYPES: readonly string[] = ['*/*'];

/** Name of the deployment stage: the version segment that ends the base URL. */
export const API_STAGE_NAME = 'v1';

/** Distinct resource paths, each with the methods it serves (for 405 answers and `Allow`). */
export function resourcePaths(): Map<string, HttpMethod[]> {
  const paths = new Map<string, HttpMethod[]>();
  for (const route of ROUTES) {
    paths.set(route.path, [...(paths.get(route.path) ?? []), route.method]);
  }
  return paths;
}

/**
 * How long API Gateway (and the local emulator) caches an authorizer result per Authorization
 * header value, in seconds. It bounds how long a revoked key keeps working.
 */
export const AUTHORIZER_CACHE_TTL_SECONDS = 60;
