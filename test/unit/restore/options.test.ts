import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { runRestoreCommand } from '../../../infra/cli/restore/restore-program.ts';

/** Runs the command with no store behind it: what it refuses, it refuses before opening one. */
async function restore(args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runRestoreCommand(args, {
    local: {
      endpoint: 'http://127.0.0.1:1',
      petsTableName: 'petstore-pets',
      keysTableName: 'petstore-keys',
      auditTableName: 'petstore-audit',
      countersTableName: 'petstore-counters',
      credentialsFile: '/nowhere/dynamodb.env',
      hasCredentials: false,
    },
    openClient: () => {
      throw new Error('opened a table');
    },
    dynamodb: new DynamoDBClient({ region: 'us-east-1' }),
    cloudFormation: new CloudFormationClient({ region: 'us-east-1' }),
    apiGateway: new APIGatewayClient({ region: 'us-east-1' }),
    callerArn: () => {
      throw new Error('asked who runs it');
    },
    now: () => Date.parse('2026-11-26T12:00:00Z'),
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(...line.split('\n')),
  });
  return { code, stdout, stderr };
}

describe('restore command arguments', () => {
  it.each([
    [
      ['--table', 'counters', '--from-table', 'x'],
      'restore: The counters table (petstore-counters) is never restored: rate-limit windows and bans of the past mean nothing now.',
    ],
    [
      ['--table', 'idempotency', '--from-table', 'x'],
      'restore: The idempotency table (petstore-idempotency) is never restored: replays of the past mean nothing now, and its records expire within 24 hours.',
    ],
    [
      ['--table', 'orders', '--from-table', 'x'],
      'restore: Unknown table "orders": use pets or keys.',
    ],
    [
      ['--table', 'pets'],
      'restore: Give the good copy: --to TIME or --from-table NAME, one of them.',
    ],
    [
      [
        '--table',
        'pets',
        '--from-table',
        'x',
        '--to',
        '2026-11-26T09:00:00Z',
        '--stage',
        'staging',
      ],
      'restore: Give the good copy: --to TIME or --from-table NAME, one of them.',
    ],
    [
      ['--table', 'keys', '--from-table', 'x', '--overwrite'],
      'restore: --overwrite is for pets only: a key is never put back wider than it is.',
    ],
    [
      ['--table', 'keys', '--from-table', 'x', '--keep'],
      'restore: --keep is for --to: the command deletes only a table it restored.',
    ],
    [
      ['--table', 'pets', '--to', '2026-11-27T09:00:00Z', '--stage', 'staging'],
      'restore: --to 2026-11-27T09:00:00Z is in the future.',
    ],
    [
      ['--table', 'pets', '--from-table', 'x', '--stage', 'dev'],
      'restore: Unknown stage "dev": use one of staging, production.',
    ],
    [['--from-table', 'x'], "restore: error: required option '--table <table>' not specified"],
  ])('refuses %j with exit status 2, before opening any table', async (args, message) => {
    const { code, stdout, stderr } = await restore(args);

    expect(code).toBe(2);
    expect(stdout).toEqual([]);
    expect(stderr[0]).toBe(message);
    expect(stderr).toContain('Usage: npm run restore -- [options]');
  });

  it('fails with exit status 1 when the local stack was never started', async () => {
    const { code, stderr } = await restore(['--table', 'pets', '--from-table', 'x']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      'restore: No DynamoDB Local credentials in /nowhere/dynamodb.env: start the local stack once with `npm start`, which creates them.',
    ]);
  });
});
