/**
 * The portal API's route table (docs/portal-openapi.yaml; docs/operations.md, "Portal"): one row
 * per operation of shared/portal-operations.ts with its function (one Lambda per operation, as
 * the other APIs'), exactly the calls it makes (the stack grants these and no more), built by the
 * stack into the portal's RestApi behind a Cognito authorizer and served by the local stack from
 * the same rows (infra/local/portal-gateway.ts). A portal function changes keys through the key
 * service only, as the admin functions do, so its grants are the admin operation's it stands for,
 * plus what only the portal does: an owner's keys by the `OwnerKeys` index, the account item of
 * its active keys, the user pool (deleteAccount) and the default event bus (setPortalKeyPlan).
 *
 * - the handlers: functions/portal/handlers/; their chain: shared/http/portal-handler.ts (the ID
 *   token checked again, CORS); the token check: shared/cognito/id-token-verifier.ts
 * - the rules of keys and accounts: shared/keys/key-service.ts, shared/keys/accounts.ts
 */
import type { AdminOperationId } from '../shared/admin-operations.ts';
import { KEYS_TABLE, OWNER_KEYS_INDEX } from '../shared/dynamodb/tables.ts';
import {
  PORTAL_OPERATIONS,
  type PortalOperation,
  type PortalOperationId,
} from '../shared/portal-operations.ts';
import { adminRouteOf } from './admin-routes.ts';
import type { FunctionDefinition, TableAccess } from './routes.ts';

/** One row of the portal route table: the operation and its function. */
export interface PortalRouteDefinition extends FunctionDefinition, PortalOperation {
  /** The user pool's actions it calls (`cognito-idp:…`). @default - none */
  readonly userPoolAccess?: readonly string[];
  /** Whether it puts events on its region's default bus (PutEvents). @default false */
  readonly publishesEvents?: boolean;
}

/** An owner's keys, a page at a time (Query of the `OwnerKeys` index). */
const OWNER_KEYS: TableAccess = {
  table: KEYS_TABLE,
  actions: ['dynamodb:Query'],
  index: OWNER_KEYS_INDEX,
};

/** The account item of an account's active keys, read (getAccount) or changed with a key. */
const ACCOUNT_ITEM: TableAccess = {
  table: KEYS_TABLE,
  actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
};

/** The calls of the admin operation `operationId`, which the portal's stands for, and `more`. */
function asAdmin(
  operationId: AdminOperationId,
  more: readonly TableAccess[] = [],
): Pick<FunctionDefinition, 'tableAccess' | 'apiGatewayAccess'> {
  const { tableAccess, apiGatewayAccess } = adminRouteOf(operationId);
  return { tableAccess: [...tableAccess, ...more], ...(apiGatewayAccess && { apiGatewayAccess }) };
}

/** The function of each portal operation and the calls it makes. */
const PORTAL_FUNCTIONS: Readonly<
  Record<PortalOperationId, Omit<PortalRouteDefinition, keyof PortalOperation>>
> = {
  getAccount: {
    entry: 'functions/portal/get-account.ts',
    constructId: 'PortalGetAccountFunction',
    tableAccess: [{ table: KEYS_TABLE, actions: ['dynamodb:GetItem'] }],
  },
  deleteAccount: {
    entry: 'functions/portal/delete-account.ts',
    constructId: 'PortalDeleteAccountFunction',
    ...asAdmin('revokeKey', [OWNER_KEYS]),
    userPoolAccess: ['cognito-idp:AdminDeleteUser'],
  },
  listPortalKeys: {
    entry: 'functions/portal/list-portal-keys.ts',
    constructId: 'PortalListKeysFunction',
    ...asAdmin('getKey', [OWNER_KEYS]),
  },
  createPortalKey: {
    entry: 'functions/portal/create-portal-key.ts',
    constructId: 'PortalCreateKeyFunction',
    ...asAdmin('createKey', [ACCOUNT_ITEM]),
  },
  getPortalKey: {
    entry: 'functions/portal/get-portal-key.ts',
    constructId: 'PortalGetKeyFunction',
    ...asAdmin('getKey'),
  },
  rollPortalKey: {
    entry: 'functions/portal/roll-portal-key.ts',
    constructId: 'PortalRollKeyFunction',
    ...asAdmin('rollKey'),
  },
  revokePortalKey: {
    entry: 'functions/portal/revoke-portal-key.ts',
    constructId: 'PortalRevokeKeyFunction',
    ...asAdmin('revokeKey'),
  },
  getPortalKeyUsage: {
    entry: 'functions/portal/get-portal-key-usage.ts',
    constructId: 'PortalGetKeyUsageFunction',
    ...asAdmin('getKeyUsage'),
  },
  setPortalKeyPlan: {
    entry: 'functions/portal/set-portal-key-plan.ts',
    constructId: 'PortalSetKeyPlanFunction',
    ...asAdmin('setKeyPlan', [...adminRouteOf('getKey').tableAccess]),
    publishesEvents: true,
  },
};

/** Every operation of the portal API with its function, in shared/portal-operations.ts's order. */
export const PORTAL_ROUTES: readonly PortalRouteDefinition[] = PORTAL_OPERATIONS.map(
  (operation) => ({ ...PORTAL_FUNCTIONS[operation.operationId], ...operation }),
);

/** Distinct resource paths of the portal API, each with the methods it serves. */
export function portalResourcePaths(): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const route of PORTAL_ROUTES) {
    paths.set(route.path, [...(paths.get(route.path) ?? []), route.method]);
  }
  return paths;
}
