/**
 * The restore on a deployed stage (`--stage`, `--to`): point-in-time recovery, its wait and its
 * cleanup mocked with aws-sdk-client-mock (DynamoDB Local has none), the "restored" table a copy
 * on DynamoDB Local under the name the restore gives it; a key put back gets its API key again.
 */
import {
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import {
  DeleteTableCommand,
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  RestoreTableToPointInTimeCommand,
} from '@aws-sdk/client-dynamodb';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { restoredTableName } from '../../../infra/cli/restore/point-in-time.ts';
import { KEYS_TABLE } from '../../../shared/dynamodb/tables.ts';
import type { ApiKeyRecord } from '../../../shared/keys/key-records.ts';
import {
  apiGateway,
  apiGatewayCalls,
  copyTable,
  deleteItem,
  liveKey,
  liveTables,
  pointInTime,
  restoreCommand,
  usagePlanId,
} from '../../support/restore-command.ts';
import { useDeployedStageOf } from '../../support/stage-mocks.ts';
import { seedKey } from '../../support/test-keys.ts';

const restorePoint = new Date(Date.now() - 3_600_000);
const to = restorePoint.toISOString();
const restored = restoredTableName(liveTables.keys, restorePoint);
const restoreKeysOfStaging = ['--table', 'keys', '--to', to, '--stage', 'staging'];
let lost: ApiKeyRecord;
let revoked: ApiKeyRecord;

useDeployedStageOf({
  petsTableName: liveTables.pets,
  keysTableName: liveTables.keys,
  countersTableName: liveTables.counters,
  auditTableName: liveTables.audit,
});

beforeAll(async () => {
  lost = (await seedKey({ plan: 'pro', owner: 'lost' })).record;
  revoked = (
    await seedKey({ plan: 'free', owner: 'lost, revoked' }, { revokedAt: new Date().toISOString() })
  ).record;
  await copyTable(KEYS_TABLE, liveTables.keys, restored);
  for (const record of [lost, revoked]) {
    await deleteItem(liveTables.keys, { keyHash: record.keyId });
    await deleteItem(liveTables.keys, { keyHash: record.keyHash });
  }
});

beforeEach(() => {
  pointInTime.reset();
  pointInTime.on(DescribeContinuousBackupsCommand).resolves({
    ContinuousBackupsDescription: {
      ContinuousBackupsStatus: 'ENABLED',
      PointInTimeRecoveryDescription: {
        PointInTimeRecoveryStatus: 'ENABLED',
        EarliestRestorableDateTime: new Date(Date.now() - 35 * 86_400_000),
        LatestRestorableDateTime: new Date(Date.now() - 300_000),
      },
    },
  });
  pointInTime.on(RestoreTableToPointInTimeCommand).resolves({});
  pointInTime.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'ACTIVE' } });
  pointInTime.on(DeleteTableCommand).resolves({});
});

describe('restore on a deployed stage', () => {
  it('restores the keys table to --to, compares, and with --keep leaves the restored table', async () => {
    const { code, stdout, stderr } = await restoreCommand([...restoreKeysOfStaging, '--keep']);

    expect(code).toBe(0);
    expect(pointInTime.commandCalls(RestoreTableToPointInTimeCommand)[0]?.args[0].input).toEqual({
      SourceTableName: liveTables.keys,
      TargetTableName: restored,
      RestoreDateTime: restorePoint,
    });
    expect(stderr).toEqual([
      `Restoring ${liveTables.keys} to ${to} into ${restored}…`,
      `Kept ${restored}: a run again with the same --to uses it.`,
    ]);
    expect(stdout.at(-1)).toBe(
      'Dry run, nothing written: 2 missing, 0 differing: 2 to write, 0 left as is (--apply writes).',
    );
    expect(pointInTime.commandCalls(DeleteTableCommand)).toEqual([]);
    expect(apiGatewayCalls()).toEqual([]);
  });

  it('puts the keys back with --apply, re-creates the missing API key of the unrevoked one, and deletes the restored table', async () => {
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'api-key-1' });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});

    const { code, stdout } = await restoreCommand([...restoreKeysOfStaging, '--apply']);

    expect(code).toBe(0);
    expect(stdout).toContain(
      `missing  key ${lost.keyId}:  put back: head and 1 token (Pro); API Gateway API key api-key-1 re-created in usage plan ${usagePlanId('pro')}`,
    );
    expect(await liveKey(lost.keyId)).toEqual(lost);
    expect((await liveKey(revoked.keyId))?.revokedAt).toBeDefined();
    expect(apiGatewayCalls()).toEqual([
      ['GetApiKeysCommand', { nameQuery: lost.keyId }],
      [
        'CreateApiKeyCommand',
        expect.objectContaining({ name: lost.keyId, value: lost.usageIdentifier }),
      ],
      [
        'CreateUsagePlanKeyCommand',
        { usagePlanId: usagePlanId('pro'), keyId: 'api-key-1', keyType: 'API_KEY' },
      ],
    ]);
    expect(pointInTime.commandCalls(DeleteTableCommand)[0]?.args[0].input).toEqual({
      TableName: restored,
    });
  });

  it('refuses --to on the local stack, where DynamoDB Local has no point-in-time recovery', async () => {
    const { code, stderr } = await restoreCommand(['--table', 'keys', '--to', to]);

    expect(code).toBe(2);
    expect(stderr[0]).toBe(
      'restore: DynamoDB Local has no point-in-time recovery: on the local stack give --from-table NAME.',
    );
    expect(pointInTime.calls()).toEqual([]);
  });
});
