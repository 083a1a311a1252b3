/**
 * The API's operations as the runtime reads them, one row each (docs/openapi.yaml); infra/routes.ts
 * builds the route table on them.
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
  /** The scope a key needs (the authorizer's policy). */
  readonly scope: Scope;
  /** Its answers' Deprecation, Sunset and Link headers (`deprecationHeaders`). @default - none */
  readonly deprecation?: Deprecation;
  /** The secrets its function reads (granted exactly these, and the extension). @default - none */
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

/** @throws Error when no operation has that id. */
export function operationOf(operationId: OperationId): Operation {
  const operation = OPERATIONS.find((row) => row.operationId === operationId);
  if (!operation) throw new Error(`No operation is named ${operationId}`);
  return operation;
}
