import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import {
  closedPort,
  cloudFormation,
  keys,
  keysCommand,
  localStack,
  useDeployedStage,
} from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it.each([['set-plan', '--plan', 'pro'], ['unban']])(
    'fails %s with exit status 1 and a clear message when the key id is unknown',
    async (command, ...options) => {
      const before = await keys.listKeys();

      const { code, stdout, stderr } = await keysCommand([
        command,
        'key_0000000000000000',
        ...options,
      ]);

      expect(code).toBe(1);
      expect(stdout).toEqual([]);
      expect(stderr).toEqual([
        expect.stringMatching(/^keys: No key key_0000000000000000 on the local stack .*list/),
      ]);
      expect(await keys.listKeys()).toEqual(before);
    },
  );

  it('says to start the local stack when DynamoDB Local does not answer', async () => {
    const deadEndpoint = `http://127.0.0.1:${await closedPort()}`;

    const { code, stderr } = await keysCommand(['list'], {
      ...localStack,
      endpoint: deadEndpoint,
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: DynamoDB Local at ${deadEndpoint} does not answer: start the local stack with \`npm start\`, or set DYNAMODB_PORT to the DynamoDB Local port of the one running.`,
    ]);
  });

  it('says to start the local stack once when it has no credentials file yet', async () => {
    const { code, stderr } = await keysCommand(['list'], {
      ...localStack,
      credentialsFile: '/nowhere/dynamodb.env',
      hasCredentials: false,
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      'keys: No DynamoDB Local credentials in /nowhere/dynamodb.env: start the local stack once with `npm start`, which creates them.',
    ]);
  });

  it('says to start the local stack when the keys table does not exist', async () => {
    const { code, stderr } = await keysCommand(['create', '--plan', 'free'], {
      ...localStack,
      keysTableName: 'no-such-keys-table',
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      expect.stringMatching(
        /^keys: DynamoDB Local at .* has no table no-such-keys-table: .*npm start/,
      ),
    ]);
  });

  it('says to start the local stack when the counters table does not exist', async () => {
    const { record } = await keys.createKey({ plan: 'free' });

    const { code, stderr } = await keysCommand(['unban', record.keyId], {
      ...localStack,
      countersTableName: 'no-such-counters-table',
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      expect.stringMatching(
        /^keys: DynamoDB Local at .* has no table no-such-counters-table: .*npm start/,
      ),
    ]);
  });
});

describe('keys command on a deployed stage', () => {
  useDeployedStage();

  it('fails with a clear message when the stage is not deployed', async () => {
    cloudFormation
      .on(DescribeStacksCommand)
      .rejects(new Error('Stack with id petstore-staging does not exist'));

    const { code, stderr } = await keysCommand(['list', '--stage', 'staging']);

    expect(code).toBe(1);
    expect(stderr).toEqual([
      expect.stringMatching(/^keys: Cannot read stack petstore-staging .*does not exist$/),
    ]);
  });
});
