/**
 * The admin functions' composition root: the key service on the stage's keys, counters and audit
 * tables and, on a stage, its API Gateway API keys; the one place that builds the keys table's
 * writer (test/unit/import-graph.test.ts holds it), for every door of the key service.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { ApiGatewayKeyGateway } from '../../shared/apigateway/api-key-gateway.ts';
import { EveryRegionKeyGateway } from '../../shared/apigateway/every-region-gateway.ts';
import type { ApiGatewayTargets } from '../../shared/apigateway/key-registration.ts';
import { DynamoDBAuditLog } from '../../shared/dynamodb/audit-log.ts';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { createDynamoDBBase, type DynamoDBBase } from '../../shared/dynamodb/base.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/key-usage.ts';
import type { ApiKeyGateway } from '../../shared/keys/admin-ports.ts';
import { assertHomeRegion } from '../../shared/keys/home-region.ts';
import { KeyService } from '../../shared/keys/key-service.ts';
import { tokenStageOf } from '../../shared/keys/token.ts';
import { DEFAULT_SPREAD_POLICY } from '../../shared/rate-limit/shards.ts';
import { regionsOf } from '../../shared/regions.ts';
import { readSettings, requiredSetting, type Settings } from '../../shared/settings.ts';

/**
 * The key service on the settings of `env`: the keys, counters and audit tables on one document
 * client, tokens of the stage `PETSTORE_STAGE`, and on a stage (`PUBLIC_REST_API_ID` set) API
 * Gateway with the stage's usage plans.
 *
 * @throws Error naming the variable when a setting is invalid or a table's name is missing, or
 *   when `AWS_REGION` is not the stage's home region (keys have one writer region).
 */
export function createKeyService(env: NodeJS.ProcessEnv = process.env): KeyService {
  const base = createDynamoDBBase(readSettings(env));
  const targets = apiGatewayTargetsOf(base.settings);
  return keyServiceOn(base, targets && apiKeyGatewayOf(base.settings, targets));
}

/**
 * The key service on `base`: its client and its settings' `KEYS_TABLE_NAME`, `AUDIT_TABLE_NAME`
 * (with `AUDIT_RETENTION_DAYS`), `COUNTERS_TABLE_NAME`, `PETSTORE_REGIONS` and `PETSTORE_STAGE`
 * (the prefix of new tokens); with `apiGateway`, the stage's API keys too.
 * @param apiGateway @default - none: the local stack, or a command that re-creates API keys itself
 * @throws Error when a table's name is missing, or `AWS_REGION` is not the home region.
 */
export function keyServiceOn(base: DynamoDBBase<Settings>, apiGateway?: ApiKeyGateway): KeyService {
  const { client, settings } = base;
  assertHomeRegion(settings, 'Keys');
  const audit = DynamoDBAuditLog.from(base);
  const countersTable = requiredSetting(settings, 'COUNTERS_TABLE_NAME');
  const regions = regionsOf(settings);
  const { shards } = DEFAULT_SPREAD_POLICY;
  return new KeyService({
    keys: new DynamoDBKeyStore(client, requiredSetting(settings, 'KEYS_TABLE_NAME'), audit),
    audit,
    bans: new DynamoDBRateLimitBans(client, countersTable, audit, shards, regions),
    usage: new DynamoDBKeyUsage(client, countersTable, shards, regions),
    tokenStage: tokenStageOf(settings.PETSTORE_STAGE),
    ...(apiGateway && { apiGateway }),
  });
}

/**
 * The key service in the stage's home region, for a function of any region (the leaked-key
 * endpoint): on `base` in the home region, else on a client of the home region (its
 * `HOME_DYNAMODB_ENDPOINT` locally), API Gateway's API keys left to the admin API.
 * @throws Error as {@link keyServiceOn}.
 */
export function homeKeyService(base: DynamoDBBase<Settings>): KeyService {
  const { names, own } = regionsOf(base.settings);
  if (own === 0) return keyServiceOn(base);
  const settings = {
    ...base.settings,
    AWS_REGION: names[0],
    DYNAMODB_ENDPOINT: base.settings.HOME_DYNAMODB_ENDPOINT,
  };
  return keyServiceOn({ settings, client: createDocumentClient({ settings, region: names[0] }) });
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
 * The stage's public API for the key service, or `undefined` without `PUBLIC_REST_API_ID`
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
