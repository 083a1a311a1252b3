/**
 * The restore on a stage of two regions (issue 41, item 7): `--region` compares that region's
 * replica of the table (its stack found through the home stack's `Regions` output,
 * stage-stacks.ts); `--apply` writes through the home region only and refuses another region's;
 * a key put back gets its API key again in every region, each in its own region's usage plan.
 * One DynamoDB Local plays both replicas; CloudFormation and API Gateway are mocked per region
 * (told apart by each client's region).
 */
import {
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { regionalStackName, STACK_OUTPUTS } from '../../../infra/stages.ts';
import { KEYS_TABLE } from '../../../shared/dynamodb/tables.ts';
import type { ApiKeyRecord } from '../../../shared/keys/key-records.ts';
import {
  apiGateway,
  copyTable,
  deleteItem,
  liveKey,
  liveTables,
  restoreCommand,
} from '../../support/restore-command.ts';
import { clientRegion, mockTwoRegionStacks, TWO_REGIONS } from '../../support/stage-mocks.ts';
import { seedKey } from '../../support/test-keys.ts';

const { home: HOME, other: OTHER } = TWO_REGIONS;
const goodCopy = `${liveTables.keys}-good`;
let lost: ApiKeyRecord;
/** API Gateway calls as `region Command input`. */
let calls: string[];

beforeAll(async () => {
  lost = (await seedKey({ plan: 'pro', owner: 'lost' })).record;
  await copyTable(KEYS_TABLE, liveTables.keys, goodCopy);
  await deleteItem(liveTables.keys, { keyHash: lost.keyId });
  await deleteItem(liveTables.keys, { keyHash: lost.keyHash });
});

beforeEach(() => {
  apiGateway.reset();
  calls = [];
  mockTwoRegionStacks([
    { OutputKey: STACK_OUTPUTS.keysTableName, OutputValue: liveTables.keys },
    { OutputKey: STACK_OUTPUTS.auditTableName, OutputValue: liveTables.audit },
    { OutputKey: STACK_OUTPUTS.countersTableName, OutputValue: liveTables.counters },
  ]);
  const record = (command: string) => async (input: unknown, getClient: unknown) => {
    const region = await clientRegion(getClient);
    calls.push(`${region} ${command} ${JSON.stringify(input)}`);
    return command === 'GetApiKeys' ? { items: [] } : { id: `${region}-api-key` };
  };
  apiGateway.on(GetApiKeysCommand).callsFake(record('GetApiKeys'));
  apiGateway.on(CreateApiKeyCommand).callsFake(record('CreateApiKey'));
  apiGateway.on(CreateUsagePlanKeyCommand).callsFake(record('CreateUsagePlanKey'));
});

const restoreKeys = ['--table', 'keys', '--from-table', goodCopy, '--stage', 'staging'];

describe('restore on a stage of two regions', () => {
  it("compares the other region's replica with --region, writing nothing", async () => {
    const { code, stdout } = await restoreCommand([...restoreKeys, '--region', OTHER]);

    expect(code).toBe(0);
    expect(stdout[0]).toBe(
      `keys of stage staging (stack ${regionalStackName('staging', OTHER)} in ${OTHER}): live table ${liveTables.keys}, good copy ${goodCopy}.`,
    );
    expect(stdout.at(-1)).toMatch(/^Dry run, nothing written: 1 missing,/);
    expect(calls).toEqual([]);
  });

  it('refuses --apply in a region other than the home region: replication carries the writes', async () => {
    const { code, stderr } = await restoreCommand([...restoreKeys, '--region', OTHER, '--apply']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `restore: --apply writes through the home region ${HOME} only, and replication carries the writes to the other regions: drop --region ${OTHER} (without --apply it compares ${OTHER}'s replica).`,
    ]);
    expect(await liveKey(lost.keyId)).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('puts a key back through the home region and re-creates its API key in every region', async () => {
    const { code, stdout } = await restoreCommand([...restoreKeys, '--apply']);

    expect(code).toBe(0);
    expect(await liveKey(lost.keyId)).toEqual(lost);
    expect(stdout).toContain(
      `missing  key ${lost.keyId}:  put back: head and 1 token (Pro); ${HOME}: API Gateway API key ${HOME}-api-key re-created in usage plan ${HOME}-pro; ${OTHER}: API Gateway API key ${OTHER}-api-key re-created in usage plan ${OTHER}-pro`,
    );
    expect(calls.map((call) => call.split(' ').slice(0, 2).join(' '))).toEqual([
      `${HOME} GetApiKeys`,
      `${HOME} CreateApiKey`,
      `${HOME} CreateUsagePlanKey`,
      `${OTHER} GetApiKeys`,
      `${OTHER} CreateApiKey`,
      `${OTHER} CreateUsagePlanKey`,
    ]);
    expect(calls.filter((call) => call.includes('CreateApiKey'))).toEqual([
      expect.stringContaining(`"value":"${lost.usageIdentifier}"`),
      expect.stringContaining(`"value":"${lost.usageIdentifier}"`),
    ]);
  });
});
