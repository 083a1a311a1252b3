/**
 * The route table, the map of the service: one row per operation, its runtime part (method, path,
 * scope, deprecation, secrets) from shared/operations.ts, beside what only the deployment knows
 * (handler file, construct id, DynamoDB calls). The stack builds one function and one method per
 * row, the local gateway routes by the same rows, the functions read their operation's row in
 * shared/operations.ts. Where each behaviour lives:
 *
 * - an operation's handler: its row's `entry` (functions/*.ts) → functions/handlers/*.ts
 * - the handler chain (middy, in order): shared/http/chain.ts (every function's),
 *   shared/http/middleware.ts (`httpMiddlewares`), shared/http/handler.ts
 * - rate limiting: shared/http/rate-limit.ts → shared/rate-limit/decision.ts,
 *   shared/dynamodb/dynamodb-rate-limiter.ts; the plans' numbers: shared/plans.ts
 * - idempotency (createPet): shared/idempotency/record.ts, shared/http/idempotency-key.ts,
 *   shared/dynamodb/idempotency-items.ts, shared/dynamodb/pet-creator.ts
 * - the authorizer and scopes: `AUTHORIZER.entry` → functions/handlers/authorizer.ts,
 *   shared/keys/scopes.ts (an operation's `scope`), shared/keys/token.ts
 * - errors: shared/http/http-errors.ts (catalogue), shared/http/error-mapping.ts; the gateway's
 *   own: infra/gateway-responses.ts
 * - tables and grants: shared/dynamodb/tables.ts; a row's `tableAccess` →
 *   infra/constructs/service-function.ts, enforced locally by infra/local/iam.ts
 * - secrets: an operation's `secrets` → shared/secret-definitions.ts; read by shared/secrets.ts
 * - settings (every environment variable): shared/settings.ts
 * - deprecation: an operation's `deprecation` → shared/http/deprecation.ts (its headers), put on
 *   every answer by getPet's handler (`deprecated`, functions/handlers/get-pet.ts)
 * - paging and the cursor: shared/pets/cursor.ts, shared/http/page-link.ts,
 *   shared/dynamodb/status-index.ts, shared/pets/page-cache.ts
 * - the stage and paths (`v1`, `/pets`): shared/paths.ts
 * - deadlines and store failures (503): shared/deadline.ts, shared/store-errors.ts
 * - the stack: infra/app.ts → infra/petstore-stack.ts → infra/constructs/
 * - the local stack (`npm start`): infra/local/start.ts → infra/local/gateway.ts
 * - the commands: infra/cli/common/program.ts; keys: infra/cli/keys/keys-program.ts; restore
 *   (lost pets and keys): infra/cli/restore/restore-program.ts, its rules in restore/rules.ts and
 *   key-rules.ts; infra/cli/deploy.ts, infra/cli/smoke.ts, infra/cli/rollback.ts
 */

import {
  COUNTERS_TABLE,
  IDEMPOTENCY_TABLE,
  KEYS_TABLE,
  PETS_TABLE,
  STATUS_INDEX,
  type TableDefinition,
} from '../shared/dynamodb/tables.ts';
import {
  type HttpMethod,
  OPERATIONS,
  type Operation,
  type OperationId,
} from '../shared/operations.ts';
import type { SecretDefinition } from '../shared/secret-definitions.ts';

/**
 * DynamoDB actions a function may call on one table, optionally also on one of its GSIs. The stack
 * grants exactly these (least privilege: no wildcard, no managed policy).
 */
export interface TableAccess {
  readonly table: TableDefinition;
  readonly actions: readonly string[];
  /** A GSI of `table` that the actions may also use (e.g. Query). */
  readonly index?: string;
  /**
   * The calls go to the home region's replica (keys have one writer region): in another region's
   * stack the grant names the home region's table. @default false - the function's own region
   */
  readonly inHomeRegion?: boolean;
}

/**
 * API Gateway management calls a function may make: one HTTP method of the `apigateway` service on
 * resource paths such as `/apikeys/*` (IAM action `apigateway:<method>`, resource
 * `arn:<partition>:apigateway:<region>::<path>`). Only the admin functions hold any.
 */
export interface ApiGatewayAccess {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly paths: readonly string[];
  /** Only in the stage's regions other than the home region (a look-up by name there). */
  readonly otherRegionsOnly?: boolean;
}

/** A Lambda function of the service: its handler file, construct id, DynamoDB calls and secrets. */
export interface FunctionDefinition {
  /** Handler file, relative to the repository root; it exports `handler`. */
  readonly entry: string;
  /** Construct id of the function in the stack (a contract: changing it replaces the function). */
  readonly constructId: string;
  /** Exactly the DynamoDB calls the function makes. */
  readonly tableAccess: readonly TableAccess[];
  /** The secrets it reads (an operation's `secrets`). @default - none */
  readonly secrets?: readonly SecretDefinition[];
  /** The API Gateway key and usage-plan calls it makes. @default - none */
  readonly apiGatewayAccess?: readonly ApiGatewayAccess[];
  /** Whether it puts events on its region's default bus (PutEvents). @default false */
  readonly publishesEvents?: boolean;
  /** Its timeout, seconds. @default FUNCTION_TIMEOUT_SECONDS */
  readonly timeoutSeconds?: number;
}

/**
 * The rate limiter's calls on a request path: conditional UpdateItems on the counters table, and in
 * a stage of several regions GetItems of the other regions' items beside them.
 */
export const RATE_LIMITER_ACCESS: TableAccess = {
  table: COUNTERS_TABLE,
  actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
};

/** One operation of the API: its runtime part and the function that serves it. */
export interface RouteDefinition extends FunctionDefinition, Operation {}

/**
 * The function of each operation. Each `tableAccess` is its store's calls and the rate limiter's.
 * createPet leases blocks of ids from the sequence item of the pets table (UpdateItem) and puts the
 * pet (PutItem), with an Idempotency-Key in one transaction with its idempotency record (PutItem on
 * each table) and, in a stage of several regions, the check of the other regions' records
 * (ConditionCheckItem).
 */
const OPERATION_FUNCTIONS: Readonly<Record<OperationId, FunctionDefinition>> = {
  listPets: {
    entry: 'functions/list-pets.ts',
    constructId: 'ListPetsFunction',
    tableAccess: [
      { table: PETS_TABLE, actions: ['dynamodb:Query'], index: STATUS_INDEX },
      RATE_LIMITER_ACCESS,
    ],
  },
  createPet: {
    entry: 'functions/create-pet.ts',
    constructId: 'CreatePetFunction',
    tableAccess: [
      { table: PETS_TABLE, actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'] },
      RATE_LIMITER_ACCESS,
      { table: IDEMPOTENCY_TABLE, actions: ['dynamodb:ConditionCheckItem', 'dynamodb:PutItem'] },
    ],
  },
  getPet: {
    entry: 'functions/get-pet.ts',
    constructId: 'GetPetFunction',
    tableAccess: [{ table: PETS_TABLE, actions: ['dynamodb:GetItem'] }, RATE_LIMITER_ACCESS],
  },
};

/** Every operation of the API with its function, in the spec's order (shared/operations.ts). */
export const ROUTES: readonly RouteDefinition[] = OPERATIONS.map((operation) => ({
  ...OPERATION_FUNCTIONS[operation.operationId],
  ...operation,
}));

/**
 * The route of an operation.
 *
 * @throws Error when no route has the operation id.
 */
export function routeOf(operationId: OperationId): RouteDefinition {
  const route = ROUTES.find((row) => row.operationId === operationId);
  if (!route) throw new Error(`No route has the operation ${operationId}`);
  return route;
}

/** The Lambda REQUEST authorizer: one strongly consistent GetItem on the keys table per uncached key. */
export const AUTHORIZER: FunctionDefinition = {
  entry: 'functions/authorizer.ts',
  constructId: 'AuthorizerFunction',
  tableAccess: [{ table: KEYS_TABLE, actions: ['dynamodb:GetItem'] }],
};

/** The secrets the functions read, each once: the stack creates them, the local stack sets them. */
export function functionSecrets(): SecretDefinition[] {
  return [...new Set([...ROUTES, AUTHORIZER].flatMap((fn) => fn.secrets ?? []))];
}

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
