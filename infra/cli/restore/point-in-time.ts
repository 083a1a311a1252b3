/**
 * `--to TIME` on a stage: the table restored from point-in-time recovery into a new table
 * (RestoreTableToPointInTime), waited for, and deleted afterwards (docs/operations.md,
 * "Recovering lost pets or keys").
 */
import {
  DeleteTableCommand,
  DescribeContinuousBackupsCommand,
  type DynamoDBClient,
  RestoreTableToPointInTimeCommand,
  TableAlreadyExistsException,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { UsageError } from '../common/program.ts';

/** The days point-in-time recovery reaches back (AWS's fixed retention period). */
export const RECOVERY_DAYS = 35;

/**
 * Seconds to wait for a restored table to become ACTIVE: AWS gives no bound (a restore's time
 * grows with the table's size), so the command stops waiting after 4 hours; a run after that
 * finds the table and waits again.
 */
export const RESTORE_WAIT_SECONDS = 4 * 60 * 60;

/**
 * The time given with `--to`: ISO 8601 with a date, a time and a zone (`Z` or an offset), not in
 * the future, within the last {@link RECOVERY_DAYS} days.
 *
 * @param nowMs Epoch milliseconds.
 * @throws UsageError for anything else.
 */
export function parseRestoreTime(text: string, nowMs: number): Date {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const at = Date.parse(text);
  if (!iso.test(text) || Number.isNaN(at)) {
    throw new UsageError(
      `--to must be an ISO 8601 time with its zone, e.g. 2026-11-26T23:15:00Z, not "${text}".`,
    );
  }
  if (at > nowMs) throw new UsageError(`--to ${text} is in the future.`);
  if (at < nowMs - RECOVERY_DAYS * 86_400_000) {
    throw new UsageError(
      `--to ${text} is more than ${RECOVERY_DAYS} days ago: PITR keeps no more.`,
    );
  }
  return new Date(at);
}

/** The name of the table a restore of `source` to `at` creates, e.g. `…-pets-restored-20261126T231500Z`. */
export function restoredTableName(source: string, at: Date): string {
  const compact = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${source}-restored-${compact}`;
}

/**
 * Restores `source` to `at` into {@link restoredTableName} and waits until it is ACTIVE. A table
 * of that name already there (an earlier run's: `--keep`, or interrupted) is waited for and used,
 * not restored again.
 *
 * @returns The restored table's name.
 * @param note Told what is under way, for the operator (a restore takes minutes to hours).
 * @throws UsageError when `at` is outside the table's restorable window (point-in-time recovery
 *   off, or enabled after `at`); the client's errors; the waiter's on a restore that fails or
 *   outlasts {@link RESTORE_WAIT_SECONDS}.
 */
export async function restoreToPointInTime(
  client: DynamoDBClient,
  source: string,
  at: Date,
  note: (line: string) => void,
): Promise<string> {
  const { ContinuousBackupsDescription: backups } = await client.send(
    new DescribeContinuousBackupsCommand({ TableName: source }),
  );
  const recovery = backups?.PointInTimeRecoveryDescription;
  if (recovery?.PointInTimeRecoveryStatus !== 'ENABLED') {
    throw new UsageError(`Table ${source} has no point-in-time recovery: give --from-table.`);
  }
  const earliest = recovery.EarliestRestorableDateTime;
  const latest = recovery.LatestRestorableDateTime;
  if ((earliest && at < earliest) || (latest && at > latest)) {
    throw new UsageError(
      `--to must lie between ${earliest?.toISOString()} and ${latest?.toISOString()}, the restorable times of ${source}.`,
    );
  }
  const tableName = restoredTableName(source, at);
  try {
    await client.send(
      new RestoreTableToPointInTimeCommand({
        SourceTableName: source,
        TargetTableName: tableName,
        RestoreDateTime: at,
      }),
    );
    note(`Restoring ${source} to ${at.toISOString()} into ${tableName}…`);
  } catch (error) {
    if (!(error instanceof TableAlreadyExistsException)) throw error;
    note(`Using ${tableName}, restored by an earlier run…`);
  }
  await waitUntilTableExists(
    { client, maxWaitTime: RESTORE_WAIT_SECONDS, minDelay: 20, maxDelay: 60 },
    { TableName: tableName },
  );
  return tableName;
}

/** Deletes a table restored for the command (DeleteTable; its deletion runs on in AWS). */
export async function deleteRestoredTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<void> {
  await client.send(new DeleteTableCommand({ TableName: tableName }));
}
