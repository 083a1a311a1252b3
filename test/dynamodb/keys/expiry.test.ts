import { describe, expect, it } from 'vitest';
import { keys, keysCommand, seedKey, service, TEST_CONTEXT } from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it('sets, shows and removes the expiry of every token of a key', async () => {
    const { record, token } = await seedKey({ plan: 'free', owner: 'expiry list' });
    const rolled = await service.rollKey(record.keyId, 3600, TEST_CONTEXT);

    const set = await keysCommand([
      'set-expiry',
      record.keyId,
      '--expires-at',
      '2098-05-06T07:08:09Z',
    ]);
    const listed = await keysCommand(['list']);
    const never = await keysCommand(['set-expiry', record.keyId, '--never']);

    expect(set.code).toBe(0);
    expect(set.stdout).toContain('  expires: never -> 2098-05-06T07:08:09.000Z');
    expect(listed.stdout.find((line) => line.startsWith(record.keyId))).toContain(
      '2098-05-06T07:08:09.000Z',
    );
    expect(never.code).toBe(0);
    expect(never.stdout).toContain('  expires: 2098-05-06T07:08:09.000Z -> never');
    for (const each of [token, rolled?.token ?? '']) {
      expect(await keys.findByToken(each)).not.toHaveProperty('expiresAt');
    }
  });

  it('shows an expired key as expired in the list', async () => {
    const { record } = await seedKey({
      plan: 'free',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });

    const { stdout } = await keysCommand(['list']);

    expect(stdout.find((line) => line.startsWith(record.keyId))?.split(/\s{2,}/)[6]).toBe(
      'expired',
    );
  });
});
