import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { writeCredentials } from '../../../infra/local/stack-files.ts';
import { REPOSITORY_ROOT } from '../../../infra/repository.ts';
import { closedPort, keys, localStack } from '../../support/keys-command.ts';

/** The port of this file's local admin API, as ADMIN_PORT names it. */
const adminPort = () => new URL(localStack.adminApiUrl).port;

describe('the keys entry, run as `npx tsx infra/cli/keys.ts`', () => {
  it('issues a key whose token, the last line of stdout, the store accepts', async () => {
    const stackDir = await mkdtemp(join(tmpdir(), 'petstore-keys-'));
    writeCredentials(stackDir, inject('dynamoCredentials'));

    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'infra/cli/keys.ts', 'create', '--plan', 'pro'],
      {
        cwd: REPOSITORY_ROOT,
        // The entry finds the admin API through ADMIN_PORT and the stack's credentials, which
        // sign its requests, through PETSTORE_DIR.
        env: { ...process.env, ADMIN_PORT: adminPort(), PETSTORE_DIR: stackDir },
      },
    );
    await rm(stackDir, { recursive: true });

    const token = stdout.trimEnd().split('\n').at(-1) ?? '';
    expect(await keys.findByToken(token)).toMatchObject({ plan: 'pro' });
  });

  it('exits 1 with one line when the admin API does not answer', async () => {
    const stackDir = await mkdtemp(join(tmpdir(), 'petstore-keys-'));
    writeCredentials(stackDir, inject('dynamoCredentials'));
    const dead = await closedPort();

    const run = promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'infra/cli/keys.ts', 'list'],
      {
        cwd: REPOSITORY_ROOT,
        env: { ...process.env, PETSTORE_DIR: stackDir, ADMIN_PORT: String(dead) },
      },
    );

    await expect(run).rejects.toMatchObject({
      code: 1,
      stdout: '',
      stderr: `keys: The admin API at http://127.0.0.1:${dead}/admin does not answer: start the local stack with \`npm start\`, or set ADMIN_PORT to the admin API port of the one running.\n`,
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
