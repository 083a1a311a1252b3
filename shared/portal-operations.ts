// STUB of w48-api's shared/portal-operations.ts (the same exports): take w48-api's at merge.
export const PORTAL_API_STAGE_NAME = 'portal';

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

export type PortalHttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface PortalOperation {
  readonly operationId: PortalOperationId;
  readonly method: PortalHttpMethod;
  readonly path: string;
  readonly queryParameters?: readonly string[];
}

const KEY = '/keys/{keyId}';

export const PORTAL_OPERATIONS: readonly PortalOperation[] = [
  { operationId: 'getAccount', method: 'GET', path: '/account' },
  { operationId: 'deleteAccount', method: 'DELETE', path: '/account' },
  {
    operationId: 'listPortalKeys',
    method: 'GET',
    path: '/keys',
    queryParameters: ['limit', 'cursor'],
  },
  { operationId: 'createPortalKey', method: 'POST', path: '/keys' },
  { operationId: 'getPortalKey', method: 'GET', path: KEY },
  { operationId: 'rollPortalKey', method: 'POST', path: `${KEY}/roll` },
  { operationId: 'revokePortalKey', method: 'POST', path: `${KEY}/revoke` },
  { operationId: 'getPortalKeyUsage', method: 'GET', path: `${KEY}/usage` },
  { operationId: 'setPortalKeyPlan', method: 'PUT', path: `${KEY}/plan` },
];

export const PORTAL_CORS = {
  allowHeaders: ['Authorization', 'Content-Type'],
  maxAgeSeconds: 600,
} as const;
