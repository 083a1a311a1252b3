/** The admin functions' composition root: the key operations on the stage's tables and API Gateway. */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import type { ApiGatewayTargets } from '../keys/admin/api-gateway.ts';
import { KeyOperations } from '../keys/admin/key-operations.ts';
import { tokenStageOf } from '../keys/token.ts';
import { requiredSetting, type Settings } from '../settings.ts';
import { DynamoDBAuditLog } from './audit-log.ts';
import { DynamoDBRateLimitBans } from './bans.ts';
import { createDynamoDBBase } from './base.ts';
import { DynamoDBKeyStore } from './key-store.ts';
import { DynamoDBKeyUsage } from './usage.ts';

/**
 * The key operations on the settings of `env`: the keys, counters and audit tables on one
 * document client, tokens of the stage `PETSTORE_STAGE`, and on a stage (`PUBLIC_REST_API_ID`
 * set) API Gateway with the stage's usage plans.
 *
 * @throws Error naming the variable when a setting is invalid or a table's name is missing.
 */
export function createKeyOperations(env: NodeJS.ProcessEnv = process.env): KeyOperations {
  const base = createDynamoDBBase(env);
  const { client, settings } = base;
  const countersTable = requiredSetting(settings, 'COUNTERS_TABLE_NAME');
  const targets = apiGatewayTargetsOf(settings);
  return new KeyOperations({
    keys: DynamoDBKeyStore.from(base),
    audit: DynamoDBAuditLog.from(base),
    bans: new DynamoDBRateLimitBans(client, countersTable),
    usage: new DynamoDBKeyUsage(client, countersTable),
    tokenStage: tokenStageOf(settings.PETSTORE_STAGE),
    ...(targets && { apiGateway: { client: new APIGatewayClient({}), targets } }),
  });
}

/**
 * The stage's public API for the key operations, or `undefined` without `PUBLIC_REST_API_ID`
 * (the local stack).
 * @throws Error when it is set and a usage plan's id or the stack's name is not.
 */
function apiGatewayTargetsOf(settings: Settings): ApiGatewayTargets | undefined {
  if (settings.PUBLIC_REST_API_ID === undefined) return undefined;
  return {
    stackName: requiredSetting(settings, 'PETSTORE_STACK_NAME'),
    restApiId: settings.PUBLIC_REST_API_ID,
    usagePlanIds: {
      free: requiredSetting(settings, 'USAGE_PLAN_ID_FREE'),
      pro: requiredSetting(settings, 'USAGE_PLAN_ID_PRO'),
      business: requiredSetting(settings, 'USAGE_PLAN_ID_BUSINESS'),
    },
  };
}
