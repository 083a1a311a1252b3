import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { writeCredentials } from '../../../infra/local/stack-files.ts';
import { REPOSITORY_ROOT } from '../../../infra/repository.ts';
import { KEYS_TABLE } from '../../../shared/dynamodb/tables.ts';
import { copyTable, deleteItem, liveKey, liveTables } from '../../support/restore-command.ts';
import { seedKey } from '../../support/test-keys.ts';

/** Runs `node --import tsx infra/cli/restore.ts …` on this file's tables (DYNAMODB_ENDPOINT). */
async function restoreEntry(args: string[]) {
  const stackDir = await mkdtemp(join(tmpdir(), 'petstore-restore-'));
  writeCredentials(stackDir, inject('dynamoCredentials'));
  try {
    return await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'infra/cli/restore.ts', ...args],
      { cwd: REPOSITORY_ROOT, env: { ...process.env, PETSTORE_DIR: stackDir } },
    );
  } finally {
    await rm(stackDir, { recursive: true });
  }
}

describe('the restore entry, run as `node --import tsx infra/cli/restore.ts`', () => {
  it('puts a deleted key back on the tables the settings name, and says so in JSON', async () => {
    const { record } = await seedKey({ plan: 'free', owner: 'entry' });
    const good = await copyTable(KEYS_TABLE, liveTables.keys, `${liveTables.keys}-entry`);
    await deleteItem(liveTables.keys, { keyHash: record.keyId });
    await deleteItem(liveTables.keys, { keyHash: record.keyHash });

    const { stdout } = await restoreEntry([
      '--table',
      'keys',
      '--from-table',
      good,
      '--apply',
      '--json',
    ]);

    expect(JSON.parse(stdout).counts).toMatchObject({ missing: 1, written: 1, failed: 0 });
    expect(await liveKey(record.keyId)).toEqual(record);
  });

  it('exits 2 for --to on the local stack, before opening any table', async () => {
    const run = restoreEntry(['--table', 'pets', '--to', new Date().toISOString()]);

    await expect(run).rejects.toMatchObject({
      code: 2,
      stdout: '',
      stderr: expect.stringMatching(/^restore: DynamoDB Local has no point-in-time recovery/),
    });
  });
});
