/**
 * The admin API's route table (issue 39; docs/operations.md, "API keys"): one row per operation
 * of shared/admin-operations.ts with its function (one Lambda per operation, as the public API's
 * routes), exactly the DynamoDB and API Gateway calls it makes (the stack grants these and no
 * more), built by the stack into the admin RestApi (infra/constructs/admin-api.ts) and served by
 * the local stack from the same rows. These functions are the only ones deployed that write the
 * keys table or the audit table, or call API Gateway's key and usage-plan APIs: through the key
 * service, the keys table's one writer.
 *
 * - the rules of keys and each change: shared/keys/key-service.ts on the ports of
 *   shared/keys/admin-ports.ts (built by functions/admin/composition-root.ts); the API Gateway
 *   steps and their undo: shared/apigateway/key-registration.ts, shared/keys/undo.ts
 * - audit entries: shared/audit/entry.ts; the actor: shared/http/iam-identity.ts; the table:
 *   shared/dynamodb/audit-log.ts
 */
import {
  ADMIN_OPERATIONS,
  type AdminOperation,
  type AdminOperationId,
} from '../shared/admin-operations.ts';
import {
  AUDIT_DAY_INDEX,
  AUDIT_TABLE,
  COUNTERS_TABLE,
  KEY_HISTORY_INDEX,
  KEYS_TABLE,
  OWNER_KEYS_INDEX,
  type TableDefinition,
} from '../shared/dynamodb/tables.ts';
import type { ApiGatewayAccess, FunctionDefinition, TableAccess } from './routes.ts';

/** A change's audit entry, put if absent in the change's own transaction: never an update. */
export const AUDIT_WRITE: TableAccess = { table: AUDIT_TABLE, actions: ['dynamodb:PutItem'] };

/** Reading one key (`tokensOf`): its head and token rows, strongly consistently. */
const KEY_READ: TableAccess = { table: KEYS_TABLE, actions: ['dynamodb:GetItem'] };

/** A key's ban state (GetItem) and daily usage (BatchGetItem) on the counters table. */
const COUNTERS_READ: TableAccess = {
  table: COUNTERS_TABLE,
  actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem'],
};

/** A change to every row of a key, guarded by its head (one transaction with its audit entry). */
export function keyUpdate(table: TableDefinition = KEYS_TABLE): TableAccess {
  return {
    table,
    actions: ['dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem'],
  };
}

/** Finding a key's API Gateway API key (GetApiKeys) and the usage plans it is in. */
const FIND_API_KEY: ApiGatewayAccess = { method: 'GET', paths: ['/apikeys', '/usageplans'] };

/** Finding another region's usage plans by name (GetUsagePlans), which home's settings name. */
const FIND_USAGE_PLANS: ApiGatewayAccess = {
  method: 'GET',
  paths: ['/usageplans'],
  otherRegionsOnly: true,
};

/** One row of the admin route table: the operation and its function. */
export interface AdminRouteDefinition extends FunctionDefinition, AdminOperation {}

/** The function of each admin operation and the calls it makes. */
const ADMIN_FUNCTIONS: Readonly<Record<AdminOperationId, FunctionDefinition>> = {
  listKeys: {
    entry: 'functions/admin/list-keys.ts',
    constructId: 'AdminListKeysFunction',
    // Every key: a Scan of the heads, their rows read by BatchGetItem (GetItem after a roll);
    // an owner's: a Query of its index.
    tableAccess: [
      {
        table: KEYS_TABLE,
        actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:Scan'],
        index: OWNER_KEYS_INDEX,
      },
      COUNTERS_READ,
    ],
  },
  createKey: {
    entry: 'functions/admin/create-key.ts',
    constructId: 'AdminCreateKeyFunction',
    // The key's rows and head; with an account as owner, its account item (UpdateItem).
    tableAccess: [
      { table: KEYS_TABLE, actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem'] },
      AUDIT_WRITE,
    ],
    // Registered before the key is stored; undone (DELETE) when storing fails.
    apiGatewayAccess: [
      FIND_USAGE_PLANS,
      { method: 'POST', paths: ['/apikeys', '/usageplans', '/usageplans/*/keys'] },
      { method: 'DELETE', paths: ['/apikeys/*', '/usageplans/*'] },
    ],
  },
  getKey: {
    entry: 'functions/admin/get-key.ts',
    constructId: 'AdminGetKeyFunction',
    tableAccess: [KEY_READ, COUNTERS_READ],
  },
  rollKey: {
    entry: 'functions/admin/roll-key.ts',
    constructId: 'AdminRollKeyFunction',
    tableAccess: [
      {
        table: KEYS_TABLE,
        actions: [
          'dynamodb:DeleteItem',
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
        ],
      },
      AUDIT_WRITE,
    ],
  },
  setKeyExpiry: {
    entry: 'functions/admin/set-key-expiry.ts',
    constructId: 'AdminSetKeyExpiryFunction',
    tableAccess: [keyUpdate(), AUDIT_WRITE],
  },
  setKeyPlan: {
    entry: 'functions/admin/set-key-plan.ts',
    constructId: 'AdminSetKeyPlanFunction',
    tableAccess: [keyUpdate(), AUDIT_WRITE],
    // Moved before the stored plan changes; undone when the change fails.
    apiGatewayAccess: [
      FIND_API_KEY,
      { method: 'POST', paths: ['/usageplans', '/usageplans/*/keys'] },
      { method: 'PATCH', paths: ['/usageplans/*'] },
      { method: 'DELETE', paths: ['/usageplans/*', '/usageplans/*/keys/*'] },
    ],
  },
  setKeyScopes: {
    entry: 'functions/admin/set-key-scopes.ts',
    constructId: 'AdminSetKeyScopesFunction',
    tableAccess: [keyUpdate(), AUDIT_WRITE],
  },
  revokeKey: {
    entry: 'functions/admin/revoke-key.ts',
    constructId: 'AdminRevokeKeyFunction',
    tableAccess: [keyUpdate(), AUDIT_WRITE],
    apiGatewayAccess: [FIND_API_KEY, { method: 'PATCH', paths: ['/apikeys/*'] }],
  },
  unbanKey: {
    entry: 'functions/admin/unban-key.ts',
    constructId: 'AdminUnbanKeyFunction',
    tableAccess: [
      KEY_READ,
      { table: COUNTERS_TABLE, actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
      AUDIT_WRITE,
    ],
  },
  getKeyUsage: {
    entry: 'functions/admin/get-key-usage.ts',
    constructId: 'AdminGetKeyUsageFunction',
    tableAccess: [KEY_READ, { table: COUNTERS_TABLE, actions: ['dynamodb:BatchGetItem'] }],
  },
  getKeyHistory: {
    entry: 'functions/admin/get-key-history.ts',
    constructId: 'AdminGetKeyHistoryFunction',
    tableAccess: [
      KEY_READ,
      { table: AUDIT_TABLE, actions: ['dynamodb:Query'], index: KEY_HISTORY_INDEX },
    ],
  },
  listAuditEntries: {
    entry: 'functions/admin/list-audit-entries.ts',
    constructId: 'AdminListAuditEntriesFunction',
    tableAccess: [{ table: AUDIT_TABLE, actions: ['dynamodb:Query'], index: AUDIT_DAY_INDEX }],
  },
};

/** Every operation of the admin API with its function, in shared/admin-operations.ts's order. */
export const ADMIN_ROUTES: readonly AdminRouteDefinition[] = ADMIN_OPERATIONS.map((operation) => ({
  ...ADMIN_FUNCTIONS[operation.operationId],
  ...operation,
}));

/**
 * The admin route of an operation.
 *
 * @throws Error when no admin route has the operation id.
 */
export function adminRouteOf(operationId: AdminOperationId): AdminRouteDefinition {
  const route = ADMIN_ROUTES.find((row) => row.operationId === operationId);
  if (!route) throw new Error(`No admin route has the operation ${operationId}`);
  return route;
}

/** One IAM statement's action (`apigateway:<method>`) and resources. */
export interface ApiGatewayGrant {
  readonly action: string;
  readonly resources: readonly string[];
}

/**
 * The IAM statements of a function's API Gateway calls (`apiGatewayAccess` of its row) in every
 * region of its stage and no other: one per method, resources
 * `arn:<partition>:apigateway:<region>::<path>`; an access `otherRegionsOnly` names every region
 * but the first (none with one region).
 * @param regions The stage's regions, the home region first.
 */
export function apiGatewayGrants(
  access: readonly ApiGatewayAccess[],
  { partition, regions }: { readonly partition: string; readonly regions: readonly string[] },
): ApiGatewayGrant[] {
  return access.flatMap(({ method, paths, otherRegionsOnly }) => {
    const where = otherRegionsOnly ? regions.slice(1) : regions;
    const resources = where.flatMap((region) =>
      paths.map((path) => `arn:${partition}:apigateway:${region}::${path}`),
    );
    return resources.length > 0 ? [{ action: `apigateway:${method}`, resources }] : [];
  });
}

/** Distinct resource paths of the admin API, each with the methods it serves (405 and `Allow`). */
export function adminResourcePaths(): Map<string, string[]> {
  const paths = new Map<string, string[]>();
  for (const route of ADMIN_ROUTES) {
    paths.set(route.path, [...(paths.get(route.path) ?? []), route.method]);
  }
  return paths;
}
