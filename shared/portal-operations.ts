/**
 * The portal API's operations, a row each (docs/portal-openapi.yaml: method, path under the portal
 * stage), from which infra/portal-routes.ts builds its route table; and its CORS.
 */

/** Name of the portal API's stage: the last segment of its base URL (`…/portal`). */
export const PORTAL_API_STAGE_NAME = 'portal';

/** The signed-in account (getAccount, deleteAccount). */
export const ACCOUNT_PATH = '/account';

/** The account's keys (listPortalKeys, createPortalKey). */
export const PORTAL_KEYS_PATH = '/keys';

/** One key of the account; `keyId` is its public id (`key_…`). */
export const PORTAL_KEY_PATH = '/keys/{keyId}';

/** The portal API's operation names, also its OpenAPI operationIds. */
export type PortalOperationId =
  | 'getAccount'
  | 'deleteAccount'
  | 'listPortalKeys'
  | 'createPortalKey'
  | 'getPortalKey'
  | 'rollPortalKey'
  | 'revokePortalKey'
  | 'getPortalKeyUsage'
  | 'setPortalKeyPlan';

/** HTTP methods the portal API serves. */
export type PortalHttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface PortalOperation {
  readonly operationId: PortalOperationId;
  readonly method: PortalHttpMethod;
  /** API Gateway resource path relative to the portal stage, `{keyId}` a path parameter. */
  readonly path: string;
  /** The query parameters it takes; any other, or one given twice: 400. @default - none */
  readonly queryParameters?: readonly string[];
}

/** Every operation of the portal API, in docs/portal-openapi.yaml's order. */
export const PORTAL_OPERATIONS: readonly PortalOperation[] = [
  { operationId: 'getAccount', method: 'GET', path: ACCOUNT_PATH },
  { operationId: 'deleteAccount', method: 'DELETE', path: ACCOUNT_PATH },
  {
    operationId: 'listPortalKeys',
    method: 'GET',
    path: PORTAL_KEYS_PATH,
    queryParameters: ['limit', 'cursor'],
  },
  { operationId: 'createPortalKey', method: 'POST', path: PORTAL_KEYS_PATH },
  { operationId: 'getPortalKey', method: 'GET', path: PORTAL_KEY_PATH },
  { operationId: 'rollPortalKey', method: 'POST', path: `${PORTAL_KEY_PATH}/roll` },
  { operationId: 'revokePortalKey', method: 'POST', path: `${PORTAL_KEY_PATH}/revoke` },
  { operationId: 'getPortalKeyUsage', method: 'GET', path: `${PORTAL_KEY_PATH}/usage` },
  { operationId: 'setPortalKeyPlan', method: 'PUT', path: `${PORTAL_KEY_PATH}/plan` },
];

/**
 * The portal API's CORS, for the one origin of the portal (`PORTAL_ORIGIN`): the request headers
 * a page may send and how long a browser keeps a preflight's answer. API Gateway answers the
 * preflight on a stage, the local gateway locally; the functions add the origin to each answer.
 */
export const PORTAL_CORS = {
  allowHeaders: ['Authorization', 'Content-Type'],
  maxAgeSeconds: 600,
} as const;

/** @throws Error when no portal operation has that id. */
export function portalOperationOf(operationId: PortalOperationId): PortalOperation {
  const operation = PORTAL_OPERATIONS.find((row) => row.operationId === operationId);
  if (!operation) throw new Error(`No portal operation is named ${operationId}`);
  return operation;
}
