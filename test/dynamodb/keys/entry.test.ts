import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { writeCredentials } from '../../../infra/local/stack-files.ts';
import { REPOSITORY_ROOT } from '../../../infra/repository.ts';
import { createDocumentClient } from '../../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../../shared/dynamodb/key-store.ts';
import { KEYS_TABLE } from '../../../shared/dynamodb/tables.ts';
import { closedPort, endpoint, keys, tableName } from '../../support/keys-command.ts';

describe('the keys entry, run as `npx tsx infra/cli/keys.ts`', () => {
  it('issues a key whose token, the last line of stdout, the store accepts', async () => {
    const { DYNAMODB_ENDPOINT: _, ...environment } = process.env;
    const stackDir = await mkdtemp(join(tmpdir(), 'petstore-keys-'));
    writeCredentials(stackDir, inject('dynamoCredentials'));

    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'infra/cli/keys.ts', 'create', '--plan', 'pro'],
      {
        cwd: REPOSITORY_ROOT,
        // The entry finds DynamoDB Local through DYNAMODB_PORT, its credentials through
        // PETSTORE_DIR, and this file's table through KEYS_TABLE_NAME.
        env: {
          ...environment,
          DYNAMODB_PORT: new URL(endpoint).port,
          PETSTORE_DIR: stackDir,
          [KEYS_TABLE.envVar]: tableName,
        },
      },
    );
    await rm(stackDir, { recursive: true });

    const token = stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(await keys.findByToken(token)).toMatchObject({ plan: 'pro' });
  });

  it('creates the tables it lacks on DYNAMODB_ENDPOINT and issues the key there', async () => {
    const stackDir = await mkdtemp(join(tmpdir(), 'petstore-keys-'));
    writeCredentials(stackDir, inject('dynamoCredentials'));
    const freshTable = `${tableName}-byo`;

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'infra/cli/keys.ts', 'create', '--plan', 'free'],
      {
        cwd: REPOSITORY_ROOT,
        // The test file's other tables exist there already; this keys table does not.
        env: { ...process.env, PETSTORE_DIR: stackDir, [KEYS_TABLE.envVar]: freshTable },
      },
    );
    await rm(stackDir, { recursive: true });

    const token = stdout.trimEnd().split('\n').at(-1) ?? '';
    const store = new DynamoDBKeyStore(createDocumentClient(), freshTable);
    expect(await store.findByToken(token)).toMatchObject({ plan: 'free' });
  });

  it('exits 1 with one line when DYNAMODB_ENDPOINT does not answer', async () => {
    const stackDir = await mkdtemp(join(tmpdir(), 'petstore-keys-'));
    writeCredentials(stackDir, inject('dynamoCredentials'));
    const dead = `http://127.0.0.1:${await closedPort()}`;

    const run = promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'infra/cli/keys.ts', 'list'],
      {
        cwd: REPOSITORY_ROOT,
        env: { ...process.env, PETSTORE_DIR: stackDir, DYNAMODB_ENDPOINT: dead },
      },
    );

    await expect(run).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        new RegExp(
          `^keys: DynamoDB at ${dead} \\(DYNAMODB_ENDPOINT\\) does not answer: connect ECONNREFUSED [^\\n]*\\n$`,
        ),
      ),
    });
    await rm(stackDir, { recursive: true });
  });

  it('names an invalid setting in one line and exits 1, before any store is opened', async () => {
    const run = promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'infra/cli/keys.ts', 'list'],
      {
        cwd: REPOSITORY_ROOT,
        env: { ...process.env, DYNAMODB_PORT: 'eighty' },
      },
    );

    await expect(run).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr:
        'keys: Environment variable DYNAMODB_PORT must be a port number from 0 to 65535, not "eighty"\n',
    });
  });
});
