import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { ADMIN_FORBIDDEN_MESSAGE } from '../../../infra/gateway-responses.ts';
import { everyKey } from '../../support/every-key.ts';
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
      const before = await everyKey(keys);

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
      expect(await everyKey(keys)).toEqual(before);
    },
  );

  it('says to start the local stack when its admin API does not answer', async () => {
    const deadAdminApi = `http://127.0.0.1:${await closedPort()}/admin`;

    const { code, stderr } = await keysCommand(['list'], {
      ...localStack,
      adminApiUrl: deadAdminApi,
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      `keys: The admin API at ${deadAdminApi} does not answer: start the local stack with \`npm start\`, or set ADMIN_PORT to the admin API port of the one running.`,
    ]);
  });

  it('says to start the local stack once when it has no credentials file yet', async () => {
    const { code, stderr } = await keysCommand(['list'], {
      ...localStack,
      credentialsFile: '/nowhere/dynamodb.env',
      credentials: undefined,
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([
      'keys: No DynamoDB Local credentials in /nowhere/dynamodb.env: start the local stack once with `npm start`, which creates them.',
    ]);
  });

  it('changes nothing and says why when the admin API refuses the signature', async () => {
    const before = await everyKey(keys);

    const { code, stderr } = await keysCommand(['create', '--plan', 'free'], {
      ...localStack,
      credentials: { accessKeyId: localStackKeyId(), secretAccessKey: 'not-the-secret' },
    });

    expect(code).toBe(1);
    expect(stderr).toEqual([`keys: ${ADMIN_FORBIDDEN_MESSAGE}`]);
    expect(await everyKey(keys)).toEqual(before);
  });
});

/** The access key id the local stack's admin API knows. */
function localStackKeyId(): string {
  const { credentials } = localStack;
  return credentials && 'accessKeyId' in credentials ? credentials.accessKeyId : '';
}

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
