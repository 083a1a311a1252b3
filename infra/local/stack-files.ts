/**
 * What the local stack keeps on disk, under `.petstore/` (or `PETSTORE_DIR`): DynamoDB Local's data,
 * the stack's own random DynamoDB Local credentials (`dynamodb.env`, why: docs/local-stack.md) and
 * the pid files that let the next `npm start` stop a DynamoDB Local left behind.
 */

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseEnv } from 'node:util';
import { LOCAL_REGION, type LocalCredentials } from '../../shared/dynamodb/clients.ts';
import { readSetting } from '../../shared/settings.ts';
import { REPOSITORY_ROOT } from '../repository.ts';
import { LOCAL_ACCOUNT_ID } from './events.ts';

/** The file of the stack's DynamoDB Local credentials, in the stack's directory. */
export const CREDENTIALS_FILE = 'dynamodb.env';

/** The region of every local client (shared/dynamodb/clients.ts says why). */
export { LOCAL_REGION } from '../../shared/dynamodb/clients.ts';

/** The stack's directory: `PETSTORE_DIR`, else `.petstore` at the repository root. */
export function stackDirectory(): string {
  return resolve(readSetting('PETSTORE_DIR') ?? resolve(REPOSITORY_ROOT, '.petstore'));
}

/**
 * The IAM principal that the stack's credentials stand for: whom the local admin API's AWS_IAM
 * check finds as the signer of a request signed with them (an audit entry's actor).
 */
export const LOCAL_OPERATOR = {
  userArn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:user/petstore-local-operator`,
  userId: 'AIDAPETSTORELOCALOPERATOR',
} as const;

/** The directory of DynamoDB Local's data in a stack directory. */
export function dataDirectory(directory: string): string {
  return join(directory, 'dynamodb');
}

/**
 * Fresh random credentials: an access key id of 20 upper-case letters and digits (DynamoDB Local
 * accepts only letters and digits) and a 40-character secret.
 */
export function generateCredentials(): LocalCredentials {
  return {
    accessKeyId: `PSL${randomBytes(16).toString('hex').toUpperCase().slice(0, 17)}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
}

/**
 * The stack's credentials from `<directory>/dynamodb.env`, or `undefined` when there is no such
 * file or it lacks them.
 */
export function readCredentials(directory: string): LocalCredentials | undefined {
  const file = join(directory, CREDENTIALS_FILE);
  if (!existsSync(file)) return undefined;
  const env = parseEnv(readFileSync(file, 'utf8'));
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env;
  return accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined;
}

/**
 * The stack's credentials, generated once into `<directory>/dynamodb.env` (mode 0600, readable by
 * its owner only) in the form the AWS CLI reads from the environment.
 */
export function loadOrCreateCredentials(directory: string): LocalCredentials {
  const existing = readCredentials(directory);
  if (existing) return existing;
  const credentials = generateCredentials();
  writeCredentials(directory, credentials);
  return credentials;
}

/**
 * The stack's credentials (`.petstore/dynamodb.env`, created at the first start), put in the
 * environment where the functions' clients read them, as on Lambda; the shell's are not used.
 */
export function useStackCredentials(directory: string): LocalCredentials {
  const credentials = loadOrCreateCredentials(directory);
  Object.assign(process.env, credentialsEnv(credentials));
  delete process.env.AWS_SESSION_TOKEN;
  return credentials;
}

/** Writes credentials to `<directory>/dynamodb.env` (mode 0600), creating the directory. */
export function writeCredentials(directory: string, credentials: LocalCredentials): void {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, CREDENTIALS_FILE);
  writeFileSync(
    file,
    [
      '# DynamoDB Local credentials of this Petstore stack (npm start). Keep them private: they',
      '# are what lets a client see the stack’s tables. Use: set -a; . .petstore/dynamodb.env; set +a',
      ...Object.entries(credentialsEnv(credentials)).map(([name, value]) => `${name}=${value}`),
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  // An existing file keeps its mode through writeFileSync.
  chmodSync(file, 0o600);
}

/** The environment variables of the credentials, as the AWS SDKs and CLI read them. */
export function credentialsEnv(credentials: LocalCredentials): Record<string, string> {
  return {
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_REGION: LOCAL_REGION,
    // The AWS CLI v1 reads only this one.
    AWS_DEFAULT_REGION: LOCAL_REGION,
  };
}

/** What a pid file records: the stack's own process and the DynamoDB Local it started. */
interface PidRecord {
  readonly stack: number;
  readonly dynamodb: number;
}

/** The pid file of the stack whose DynamoDB Local listens on `port`. */
function pidFile(directory: string, port: number): string {
  return join(directory, `dynamodb-local-${port}.pid`);
}

/** Records this process and its DynamoDB Local, so that a later start can clean up after it. */
export function writePidFile(directory: string, port: number, dynamodbPid: number): void {
  mkdirSync(directory, { recursive: true });
  const record: PidRecord = { stack: process.pid, dynamodb: dynamodbPid };
  writeFileSync(pidFile(directory, port), JSON.stringify(record));
}

/** Removes this process's pid file of a port (on a clean stop). */
export function removePidFile(directory: string, port: number): void {
  rmSync(pidFile(directory, port), { force: true });
}

/**
 * Stops the DynamoDB Local that an earlier stack on the same port left running when it died
 * without stopping it (out of memory, SIGKILL): the pid file names it, its stack is gone, and the
 * process is still DynamoDB Local. A stack that still runs is left alone.
 *
 * @returns The pid stopped, or `undefined` when there was nothing to stop.
 */
export async function stopLeftBehind(directory: string, port: number): Promise<number | undefined> {
  const file = pidFile(directory, port);
  let record: PidRecord;
  try {
    record = JSON.parse(readFileSync(file, 'utf8')) as PidRecord;
  } catch {
    return undefined;
  }
  if (commandLine(record.stack) !== undefined && record.stack !== process.pid) return undefined;
  rmSync(file, { force: true });
  if (!commandLine(record.dynamodb)?.includes('DynamoDBLocal.jar')) return undefined;
  signal(record.dynamodb, 'SIGTERM');
  const deadline = Date.now() + 5_000;
  while (commandLine(record.dynamodb) !== undefined) {
    if (Date.now() > deadline) signal(record.dynamodb, 'SIGKILL');
    await sleep(100);
  }
  return record.dynamodb;
}

/** Sends a signal to a process that may have exited meanwhile. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already: what the caller wanted.
  }
}

/**
 * The command line of a running process, or `undefined` when there is none with that pid (a
 * zombie, exited but not yet reaped, counts as none).
 */
export function commandLine(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const result = spawnSync('ps', ['-o', 'stat=,args=', '-p', String(pid)], { encoding: 'utf8' });
  const [state = '', ...args] = result.stdout.trim().split(/\s+/);
  return result.status === 0 && !state.startsWith('Z') ? args.join(' ') : undefined;
}
