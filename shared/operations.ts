/**
 * The API's operations as the functions know them: one row per operation of docs/openapi.yaml,
 * holding what the runtime reads of it (method, path, scope, deprecation, the secrets its function
 * reads). The stack, the local gateway and the commands build their route table (infra/routes.ts)
 * from these rows; nothing here knows how a function is deployed.
 */
import type { Deprecation } from './http/deprecation.ts';
import type { Scope } from './keys/scopes.ts';
import { PET_PATH, PETS_PATH } from './paths.ts';
import { CURSOR_KEY_SECRET, type SecretDefinition } from './secret-definitions.ts';

export type HttpMethod = 'GET' | 'POST';

/** The spec's operation names, also the OpenAPI operationIds. */
export type OperationId = 'listPets' | 'createPet' | 'getPet';

export interface Operation {
  readonly operationId: OperationId;
  readonly method: HttpMethod;
  /** API Gateway resource path relative to the stage (paths.ts), `{name}` a path parameter. */
  readonly path: string;
  /** The scope a key needs to call it: the authorizer's policy allows it only to such keys. */
  readonly scope: Scope;
  /**
   * The operation's deprecation: its function answers with its Deprecation, Sunset and Link headers
   * (`deprecationHeaders`), docs/openapi.yaml marks it `deprecated`.
   * @default - not deprecated
   */
  readonly deprecation?: Deprecation;
  /**
   * The secrets its function reads (through the AWS Parameters and Secrets Lambda Extension,
   * deployed): exactly these are granted to it, their ARNs and the extension given to it.
   * @default - none
   */
  readonly secrets?: readonly SecretDefinition[];
}

/** Every operation of the API, in the spec's order. */
export const OPERATIONS: readonly Operation[] = [
  {
    operationId: 'listPets',
    method: 'GET',
    path: PETS_PATH,
    scope: 'pets:read',
    secrets: [CURSOR_KEY_SECRET],
  },
  { operationId: 'createPet', method: 'POST', path: PETS_PATH, scope: 'pets:write' },
  {
    operationId: 'getPet',
    method: 'GET',
    path: PET_PATH,
    scope: 'pets:read',
    // The spec's date of removal; listPets with its `status` filter replaces it.
    deprecation: {
      deprecatedAt: new Date('2026-11-21T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      successor: PETS_PATH,
    },
  },
];

/**
 * The operation named `operationId`.
 *
 * @throws Error when no operation has that id.
 */
export function operationOf(operationId: OperationId): Operation {
  const operation = OPERATIONS.find((row) => row.operationId === operationId);
  if (!operation) throw new Error(`No operation is named ${operationId}`);
  return operation;
}
