/** The admin API's operations, a row each (docs/admin-openapi.yaml); infra/admin-routes.ts builds on them. */
import type { HttpMethod } from './operations.ts';

/** Name of the admin API's stage: the last segment of its base URL (`…/admin`). */
export const ADMIN_API_STAGE_NAME = 'admin';

export const KEYS_PATH = '/keys';

/** One key; `keyId` is its public id (`key_…`). */
export const KEY_PATH = '/keys/{keyId}';

export const AUDIT_PATH = '/audit';

/** The admin API's operation names, also its OpenAPI operationIds. */
export type AdminOperationId =
  | 'listKeys'
  | 'createKey'
  | 'getKey'
  | 'rollKey'
  | 'setKeyExpiry'
  | 'setKeyPlan'
  | 'setKeyScopes'
  | 'revokeKey'
  | 'unbanKey'
  | 'getKeyUsage'
  | 'getKeyHistory'
  | 'listAuditEntries';

/** HTTP methods the admin API serves: the public API's and PUT (replacing one field of a key). */
export type AdminHttpMethod = HttpMethod | 'PUT';

export interface AdminOperation {
  readonly operationId: AdminOperationId;
  readonly method: AdminHttpMethod;
  /** Relative to the admin stage. */
  readonly path: string;
  /** Any other, or one given twice: 400. @default - none */
  readonly queryParameters?: readonly string[];
}

/** Every operation of the admin API, in docs/admin-openapi.yaml's order. */
export const ADMIN_OPERATIONS: readonly AdminOperation[] = [
  {
    operationId: 'listKeys',
    method: 'GET',
    path: KEYS_PATH,
    queryParameters: ['limit', 'cursor', 'owner'],
  },
  { operationId: 'createKey', method: 'POST', path: KEYS_PATH },
  { operationId: 'getKey', method: 'GET', path: KEY_PATH },
  { operationId: 'rollKey', method: 'POST', path: `${KEY_PATH}/roll` },
  { operationId: 'setKeyExpiry', method: 'PUT', path: `${KEY_PATH}/expiry` },
  { operationId: 'setKeyPlan', method: 'PUT', path: `${KEY_PATH}/plan` },
  { operationId: 'setKeyScopes', method: 'PUT', path: `${KEY_PATH}/scopes` },
  { operationId: 'revokeKey', method: 'POST', path: `${KEY_PATH}/revoke` },
  { operationId: 'unbanKey', method: 'POST', path: `${KEY_PATH}/unban` },
  {
    operationId: 'getKeyUsage',
    method: 'GET',
    path: `${KEY_PATH}/usage`,
    queryParameters: ['days'],
  },
  { operationId: 'getKeyHistory', method: 'GET', path: `${KEY_PATH}/history` },
  {
    operationId: 'listAuditEntries',
    method: 'GET',
    path: AUDIT_PATH,
    queryParameters: ['since', 'until', 'actor', 'event', 'limit', 'cursor'],
  },
];

/** @throws Error when no admin operation has that id. */
export function adminOperationOf(operationId: AdminOperationId): AdminOperation {
  const operation = ADMIN_OPERATIONS.find((row) => row.operationId === operationId);
  if (!operation) throw new Error(`No admin operation is named ${operationId}`);
  return operation;
}
