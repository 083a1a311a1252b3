/**
 * The admin functions' composition root: the key operations on the stage's keys, counters and
 * audit tables and, on a stage, its API Gateway API keys.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { ApiGatewayKeyGateway } from '../../shared/apigateway/api-key-gateway.ts';
import { EveryRegionKeyGateway } from '../../shared/apigateway/every-region-gateway.ts';
import type { ApiGatewayTargets } from '../../shared/apigateway/key-registration.ts';
import { DynamoDBAuditLog } from '../../shared/dynamodb/audit-log.ts';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { createDynamoDBBase } from '../../shared/dynamodb/base.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/usage.ts';
import type { ApiKeyGateway } from '../../shared/keys/admin-ports.ts';
import { KeyOperations } from '../../shared/keys/key-operations.ts';
import { tokenStageOf } from '../../shared/keys/token.ts';
import { DEFAULT_SPREAD_POLICY } from '../../shared/rate-limit/shards.ts';
import { regionsOf } from '../../shared/regions.ts';
import { requiredSetting, type Settings } from '../../shared/settings.ts';

/**
 * The key operations on the settings of `env`: the keys, counters and audit tables on one
 * document client, tokens of the stage `PETSTORE_STAGE`, and on a stage (`PUBLIC_REST_API_ID`
 * set) API Gateway with the stage's usage plans.
 *
 * @throws Error naming the variable when a setting is invalid or a table's name is missing, or
 *   when `AWS_REGION` is not the stage's home region (keys have one writer region).
 */
export function createKeyOperations(env: NodeJS.ProcessEnv = process.env): KeyOperations {
  const base = createDynamoDBBase(env);
  const { client, settings } = base;
  const audit = DynamoDBAuditLog.from(base);
  const countersTable = requiredSetting(settings, 'COUNTERS_TABLE_NAME');
  const regions = regionsOf(settings);
  const targets = apiGatewayTargetsOf(settings);
  return new KeyOperations({
    keys: DynamoDBKeyStore.from(base, audit),
    audit,
    bans: new DynamoDBRateLimitBans(
      client,
      countersTable,
      DEFAULT_SPREAD_POLICY.shards,
      regions,
      audit,
    ),
    usage: new DynamoDBKeyUsage(client, countersTable, DEFAULT_SPREAD_POLICY.shards, regions),
    tokenStage: tokenStageOf(settings.PETSTORE_STAGE),
    ...(targets && { apiGateway: apiKeyGatewayOf(settings, targets) }),
  });
}

/**
 * The stage's API keys: in its region alone, or with several regions in each of them
 * (`PETSTORE_REGION_STACKS` naming each region's stack), each through a client of its region.
 * @throws Error when there are several regions and not one stack name for each.
 */
function apiKeyGatewayOf(settings: Settings, targets: ApiGatewayTargets): ApiKeyGateway {
  const { names } = regionsOf(settings);
  const home = new ApiGatewayKeyGateway(new APIGatewayClient({}), targets);
  if (names.length === 1) return home;
  const stacks = settings.PETSTORE_REGION_STACKS?.split(',') ?? [];
  if (stacks.length !== names.length || stacks[0] !== targets.stackName) {
    throw new Error(
      `PETSTORE_REGION_STACKS (${stacks}) must name the stack of each of PETSTORE_REGIONS (${names}), ${targets.stackName} first`,
    );
  }
  return new EveryRegionKeyGateway(
    names.map((region, at) => ({
      region,
      gateway:
        at === 0
          ? home
          : new ApiGatewayKeyGateway(new APIGatewayClient({ region }), {
              stackName: stacks[at] as string,
            }),
    })),
  );
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
