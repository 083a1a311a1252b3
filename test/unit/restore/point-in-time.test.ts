import {
  DeleteTableCommand,
  DescribeContinuousBackupsCommand,
  DescribeTableCommand,
  DynamoDBClient,
  RestoreTableToPointInTimeCommand,
  TableAlreadyExistsException,
} from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../../infra/cli/common/program.ts';
import {
  deleteRestoredTable,
  parseRestoreTime,
  restoreToPointInTime,
} from '../../../infra/cli/restore/point-in-time.ts';

const client = new DynamoDBClient({ region: 'us-east-1' });
const dynamodb = mockClient(client);
const now = Date.parse('2026-11-26T12:00:00Z');
const at = new Date('2026-11-26T09:30:00Z');
const restored = 'petstore-staging-pets-restored-20261126T093000Z';

/** PITR enabled on the table, restorable from 10 days back to 5 minutes ago. */
function recoverable() {
  dynamodb.on(DescribeContinuousBackupsCommand).resolves({
    ContinuousBackupsDescription: {
      ContinuousBackupsStatus: 'ENABLED',
      PointInTimeRecoveryDescription: {
        PointInTimeRecoveryStatus: 'ENABLED',
        EarliestRestorableDateTime: new Date(now - 10 * 86_400_000),
        LatestRestorableDateTime: new Date(now - 300_000),
      },
    },
  });
}

describe('point-in-time restore of a stage table', () => {
  beforeEach(() => {
    dynamodb.reset();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('restores the table to the time into a table named after it, and waits until it is ACTIVE', async () => {
    recoverable();
    dynamodb.on(RestoreTableToPointInTimeCommand).resolves({});
    dynamodb
      .on(DescribeTableCommand)
      .resolvesOnce({ Table: { TableStatus: 'CREATING' } })
      .resolves({ Table: { TableStatus: 'ACTIVE' } });
    const notes: string[] = [];
    // The waiter sleeps 20 s or more between two DescribeTable calls.
    vi.useFakeTimers({ toFake: ['setTimeout'] });

    const restoring = restoreToPointInTime(client, 'petstore-staging-pets', at, (line) =>
      notes.push(line),
    );
    let returned = false;
    void restoring.then(() => {
      returned = true;
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(returned).toBe(false);
    await vi.advanceTimersByTimeAsync(120_000);
    const tableName = await restoring;

    expect(tableName).toBe(restored);
    expect(dynamodb.commandCalls(RestoreTableToPointInTimeCommand)[0]?.args[0].input).toEqual({
      SourceTableName: 'petstore-staging-pets',
      TargetTableName: restored,
      RestoreDateTime: at,
    });
    expect(dynamodb.commandCalls(DescribeTableCommand)).toHaveLength(2);
    expect(notes).toEqual([
      `Restoring petstore-staging-pets to ${at.toISOString()} into ${restored}…`,
    ]);
  });

  it('uses the table an earlier run restored instead of restoring again', async () => {
    recoverable();
    dynamodb
      .on(RestoreTableToPointInTimeCommand)
      .rejects(new TableAlreadyExistsException({ message: 'exists', $metadata: {} }));
    dynamodb.on(DescribeTableCommand).resolves({ Table: { TableStatus: 'ACTIVE' } });
    const notes: string[] = [];

    const tableName = await restoreToPointInTime(client, 'petstore-staging-pets', at, (line) =>
      notes.push(line),
    );

    expect(tableName).toBe(restored);
    expect(notes).toEqual([`Using ${restored}, restored by an earlier run…`]);
  });

  it('refuses a time outside the restorable window, and a table without PITR, before restoring', async () => {
    recoverable();
    const tooRecent = new Date(now - 60_000);

    await expect(
      restoreToPointInTime(client, 'petstore-staging-pets', tooRecent, () => {}),
    ).rejects.toThrow(UsageError);
    dynamodb.on(DescribeContinuousBackupsCommand).resolves({
      ContinuousBackupsDescription: {
        ContinuousBackupsStatus: 'ENABLED',
        PointInTimeRecoveryDescription: { PointInTimeRecoveryStatus: 'DISABLED' },
      },
    });
    await expect(
      restoreToPointInTime(client, 'petstore-staging-pets', at, () => {}),
    ).rejects.toThrow(
      'Table petstore-staging-pets has no point-in-time recovery: give --from-table.',
    );
    expect(dynamodb.commandCalls(RestoreTableToPointInTimeCommand)).toEqual([]);
  });

  it('deletes the restored table', async () => {
    dynamodb.on(DeleteTableCommand).resolves({});

    await deleteRestoredTable(client, restored);

    expect(dynamodb.commandCalls(DeleteTableCommand)[0]?.args[0].input).toEqual({
      TableName: restored,
    });
  });
});

describe('--to', () => {
  it.each([
    ['2026-11-26T09:30:00Z', '2026-11-26T09:30:00.000Z'],
    ['2026-11-26T10:30:00+01:00', '2026-11-26T09:30:00.000Z'],
  ])('takes %s', (text, iso) => {
    expect(parseRestoreTime(text, now).toISOString()).toBe(iso);
  });

  it.each([
    ['2026-11-26', /ISO 8601 time with its zone/],
    ['2026-11-26T09:30:00', /ISO 8601 time with its zone/],
    ['yesterday', /ISO 8601 time with its zone/],
    ['2026-11-26T13:00:00Z', /in the future/],
    ['2026-10-20T12:00:00Z', /more than 35 days ago/],
  ])('refuses %s', (text, message) => {
    expect(() => parseRestoreTime(text, now)).toThrow(message);
  });
});
