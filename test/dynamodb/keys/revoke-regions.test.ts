/**
 * `npm run keys -- revoke|set-plan <key-id> --stage S` on a stage of two regions (issue 41, item
 * 5): the admin API (in-process, its operations on API Gateway in both regions, mocked per region)
 * revokes in the keys table first and disables the key's API key in each region, or moves it in
 * each region; the command prints each region's line with its region, and a region that could not
 * disable the API key (or delete a left own usage plan) makes it fail naming that region, the
 * change standing all the same.
 */
import {
  APIGatewayClient,
  CreateUsagePlanKeyCommand,
  DeleteUsagePlanCommand,
  DeleteUsagePlanKeyCommand,
  GetApiKeysCommand,
  GetUsagePlansCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { STACK_OUTPUTS, stackName } from '../../../infra/stages.ts';
import { ApiGatewayKeyGateway } from '../../../shared/apigateway/api-key-gateway.ts';
import { EveryRegionKeyGateway } from '../../../shared/apigateway/every-region-gateway.ts';
import { DynamoDBAuditLog } from '../../../shared/dynamodb/audit-log.ts';
import { DynamoDBRateLimitBans } from '../../../shared/dynamodb/bans.ts';
import { DynamoDBKeyUsage } from '../../../shared/dynamodb/key-usage.ts';
import { KeyService } from '../../../shared/keys/key-service.ts';
import { readSettings } from '../../../shared/settings.ts';
import * as stage from '../../support/keys-command.ts';

const { home: HOME, other: OTHER } = stage.TWO_REGIONS;
const { documentClient, countersTableName, keys, keysCommand, apiGateway, seedKey, currentOf } =
  stage;

/** The deployed stage's admin API with its API keys in both regions (Free's usage plan: `f`). */
const audit = DynamoDBAuditLog.from({ client: documentClient, settings: readSettings() });
const targets = {
  stackName: stackName('staging'),
  restApiId: 'api',
  usagePlanIds: { free: 'f', pro: 'p', business: 'b' },
};
const adminApi = await stage.startAdminApi(
  new KeyService({
    keys,
    audit,
    bans: new DynamoDBRateLimitBans(documentClient, countersTableName, audit),
    usage: new DynamoDBKeyUsage(documentClient, countersTableName),
    tokenStage: 'staging',
    apiGateway: new EveryRegionKeyGateway(
      [HOME, OTHER].map((region) => ({
        region,
        gateway: new ApiGatewayKeyGateway(new APIGatewayClient({ region }), targets),
      })),
    ),
  }),
);
afterAll(() => adminApi.close());

/** The region whose UpdateApiKey fails, if any. */
let failing: string | undefined;

beforeEach(() => {
  failing = undefined;
  apiGateway.reset();
  stage.mockTwoRegionStacks([
    { OutputKey: STACK_OUTPUTS.adminApiBaseUrl, OutputValue: adminApi.url },
  ]);
  apiGateway.on(GetApiKeysCommand).callsFake(async ({ nameQuery }, getClient) => ({
    items: [{ id: `${await stage.clientRegion(getClient)}-api-key`, name: nameQuery }],
  }));
  apiGateway.on(UpdateApiKeyCommand).callsFake(async (_input, getClient) => {
    const region = await stage.clientRegion(getClient);
    if (region === failing) throw new Error('Rate exceeded');
    return {};
  });
  apiGateway.on(DeleteUsagePlanCommand).callsFake(async (_input, getClient) => {
    const region = await stage.clientRegion(getClient);
    if (region === failing) throw new Error('ConflictException');
    return {};
  });
});

describe('keys revoke on a stage of two regions', () => {
  it("prints each region's disabled API key with its region", async () => {
    const { record } = await seedKey({ plan: 'free' });

    const { code, stdout } = await keysCommand(['revoke', record.keyId, '--stage', 'staging']);

    expect(code).toBe(0);
    expect(stdout.slice(1)).toEqual([
      `Disabled API Gateway API key ${HOME}-api-key in ${HOME}.`,
      `Disabled API Gateway API key ${OTHER}-api-key in ${OTHER}.`,
    ]);
  });

  it('fails naming the region that could not disable its API key, the key revoked all the same', async () => {
    const { record } = await seedKey({ plan: 'free' });
    failing = OTHER;

    const { code, stdout, stderr } = await keysCommand([
      'revoke',
      record.keyId,
      '--stage',
      'staging',
    ]);

    expect(code).toBe(1);
    expect(stdout.slice(1)).toEqual([`Disabled API Gateway API key ${HOME}-api-key in ${HOME}.`]);
    expect(stderr).toEqual([
      `keys: Key ${record.keyId} is revoked (the authorizer refuses it), but disabling its API Gateway API key failed: Rate exceeded (${OTHER})`,
    ]);
    expect((await currentOf(record.keyId))?.revokedAt).toBeDefined();
  });
});

describe('keys set-plan on a stage of two regions', () => {
  it("prints each region's steps with its region, and fails naming the region whose old usage plan stays", async () => {
    const { record } = await stage.enterpriseKey();
    failing = OTHER;
    apiGateway.on(GetUsagePlansCommand).callsFake(async (_input, getClient) => ({
      items: [
        { id: `${await stage.clientRegion(getClient)}-own`, name: stage.ownPlanName(record.keyId) },
      ],
    }));
    apiGateway.on(DeleteUsagePlanKeyCommand).resolves({});
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});

    const { code, stdout, stderr } = await keysCommand([
      'set-plan',
      record.keyId,
      ...['--plan', 'free', '--stage', 'staging'],
    ]);

    expect(code).toBe(1);
    expect(stdout.slice(3)).toEqual([
      ...[HOME, OTHER].flatMap((region) => [
        `  ${region}: removed API Gateway API key ${region}-api-key from usage plan ${region}-own`,
        `  ${region}: added API Gateway API key ${region}-api-key to usage plan f`,
      ]),
      "Requests with the key get the new limits when the authorizer's cached result expires, within 60 s.",
      `Deleted usage plan ${HOME}-own, the key's own while it was on Enterprise in ${HOME}.`,
    ]);
    expect(stderr).toEqual([
      `keys: Key ${record.keyId} has moved, but its old usage plan ${OTHER}-own in ${OTHER} could not be deleted (ConflictException): delete it with \`aws apigateway delete-usage-plan --usage-plan-id ${OTHER}-own\`.`,
    ]);
    expect((await currentOf(record.keyId))?.plan).toBe('free');
  });
});
