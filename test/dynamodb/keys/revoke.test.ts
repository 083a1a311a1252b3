import { GetApiKeysCommand, UpdateApiKeyCommand } from '@aws-sdk/client-api-gateway';
import { DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { describe, expect, it } from 'vitest';
import { stackName } from '../../../infra/stages.ts';
import {
  apiGateway,
  cloudFormation,
  keys,
  keysCommand,
  seedKey,
  useDeployedStage,
} from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it('revokes a key, which the store then shows as revoked', async () => {
    const { record, token } = await seedKey({ plan: 'free' });

    const { code, stdout } = await keysCommand(['revoke', record.keyId]);

    expect(code).toBe(0);
    const revoked = await keys.findByToken(token);
    expect(revoked?.revokedAt).toBeDefined();
    expect(stdout).toEqual([
      `Revoked key ${record.keyId} (Free, owner -) at ${revoked?.revokedAt}.`,
    ]);
  });

  it('fails with exit status 1 and a clear message when the key id is unknown', async () => {
    const { code, stdout, stderr } = await keysCommand(['revoke', 'key_0000000000000000']);

    expect(code).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr).toEqual([
      expect.stringMatching(/^keys: No key key_0000000000000000 on the local stack .*list/),
    ]);
  });
});

describe('keys command on a deployed stage', () => {
  useDeployedStage();

  it('revokes the key and disables its API key', async () => {
    const { record, token } = await seedKey({ plan: 'business' });
    apiGateway.on(GetApiKeysCommand).resolves({
      items: [
        { id: 'apikey-2', name: record.keyId },
        { id: 'apikey-other', name: `${record.keyId}0` },
      ],
    });
    apiGateway.on(UpdateApiKeyCommand).resolves({});

    const { code, stdout } = await keysCommand(['revoke', record.keyId, '--stage', 'production']);

    expect(code).toBe(0);
    expect(cloudFormation.commandCalls(DescribeStacksCommand)[0]?.args[0].input).toEqual({
      StackName: stackName('production'),
    });
    expect((await keys.findByToken(token))?.revokedAt).toBeDefined();
    expect(apiGateway.commandCalls(UpdateApiKeyCommand).map((call) => call.args[0].input)).toEqual([
      {
        apiKey: 'apikey-2',
        patchOperations: [{ op: 'replace', path: '/enabled', value: 'false' }],
      },
    ]);
    expect(stdout).toContain('Disabled API Gateway API key apikey-2.');
  });

  it('notes on stderr that the key has no API key to disable, and succeeds', async () => {
    const { record } = await seedKey({ plan: 'free' });
    apiGateway.on(GetApiKeysCommand).resolves({ items: [] });

    const { code, stdout, stderr } = await keysCommand([
      'revoke',
      record.keyId,
      '--stage',
      'staging',
    ]);

    expect(code).toBe(0);
    expect(stdout).toEqual([expect.stringMatching(new RegExp(`^Revoked key ${record.keyId} `))]);
    expect(stderr).toEqual([
      `keys: note: no API Gateway API key is named ${record.keyId}; nothing to disable.`,
    ]);
    expect(apiGateway.commandCalls(UpdateApiKeyCommand)).toEqual([]);
  });
});
