/**
 * STUB of w48-api's file (PORTAL-CONTRACT.md, "Names and places"), so that w48-infra builds the
 * portal's stack before the portal API lands: take w48-api's at merge. Every row's entry is an
 * admin function's, which bundles; the grants are the shape, not the truth.
 */
import { AUDIT_TABLE, KEYS_TABLE } from '../shared/dynamodb/tables.ts';
import {
  PORTAL_OPERATIONS,
  type PortalOperation,
  type PortalOperationId,
} from '../shared/portal-operations.ts';
import type { FunctionDefinition } from './routes.ts';

/** One row of the portal route table: the operation and its function. */
export interface PortalRouteDefinition extends FunctionDefinition, PortalOperation {
  /** The user pool's actions it calls (`cognito-idp:…`). @default - none */
  readonly userPoolAccess?: readonly string[];
  /** Whether it puts events on its region's default bus (PutEvents). @default false */
  readonly publishesEvents?: boolean;
}

const CONSTRUCT_IDS: Readonly<Record<PortalOperationId, string>> = {
  getAccount: 'PortalGetAccountFunction',
  deleteAccount: 'PortalDeleteAccountFunction',
  listPortalKeys: 'PortalListKeysFunction',
  createPortalKey: 'PortalCreateKeyFunction',
  getPortalKey: 'PortalGetKeyFunction',
  rollPortalKey: 'PortalRollKeyFunction',
  revokePortalKey: 'PortalRevokeKeyFunction',
  getPortalKeyUsage: 'PortalGetKeyUsageFunction',
  setPortalKeyPlan: 'PortalSetKeyPlanFunction',
};

export const PORTAL_ROUTES: readonly PortalRouteDefinition[] = PORTAL_OPERATIONS.map(
  (operation) => ({
    ...operation,
    entry: 'functions/admin/get-key.ts',
    constructId: CONSTRUCT_IDS[operation.operationId],
    tableAccess: [
      { table: KEYS_TABLE, actions: ['dynamodb:GetItem'] },
      ...(operation.method === 'GET'
        ? []
        : [{ table: AUDIT_TABLE, actions: ['dynamodb:PutItem'] }]),
    ],
    ...(operation.operationId === 'deleteAccount' && {
      userPoolAccess: ['cognito-idp:AdminDeleteUser'],
    }),
    ...(operation.operationId === 'setPortalKeyPlan' && { publishesEvents: true }),
  }),
);
