import { describe, expect, it } from 'vitest';
import {
  apiGateway,
  keys,
  keysCommand,
  seedKey,
  useDeployedStage,
} from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it('issues a key that expires after --expires-in, and says when', async () => {
    const before = Date.now();

    const { code, stdout, token } = await keysCommand([
      'create',
      '--plan',
      'free',
      '--expires-in',
      '30d',
    ]);

    expect(code).toBe(0);
    const record = await keys.findByToken(token);
    const lifetimeMs = Date.parse(record?.expiresAt ?? '') - before;
    expect(lifetimeMs).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(lifetimeMs).toBeLessThan(30 * 86_400_000 + 60_000);
    expect(stdout).toContain(`  expires: ${record?.expiresAt}`);
  });

  it('issues a key that expires at --expires-at, stored in UTC', async () => {
    const { code, token } = await keysCommand([
      'create',
      '--plan',
      'pro',
      '--expires-at',
      '2099-01-01T02:00+02:00',
    ]);

    expect(code).toBe(0);
    expect((await keys.findByToken(token))?.expiresAt).toBe('2099-01-01T00:00:00.000Z');
  });

  it.each([
    [['create', '--plan', 'free', '--expires-in', '1w'], /--expires-in.*30s, 15m, 24h, 30d/],
    [['create', '--plan', 'free', '--expires-in', '0'], /--expires-in must be longer than 0/],
    [['create', '--plan', 'free', '--expires-at', '2030-01-01'], /--expires-at.*ISO 8601/],
    [['create', '--plan', 'free', '--expires-at', '2000-01-01T00:00Z'], /not in the future/],
    [
      ['create', '--plan', 'free', '--expires-in', '1d', '--expires-at', '2099-01-01T00:00Z'],
      /cannot be used with/,
    ],
    [['set-expiry', 'key_0000000000000000'], /set-expiry needs --expires-in/],
    [
      ['set-expiry', 'key_0000000000000000', '--never', '--expires-in', '1d'],
      /cannot be used with/,
    ],
  ])('refuses %j as a usage error', async (args, message) => {
    const { code, stderr } = await keysCommand(args);

    expect(code).toBe(2);
    expect(stderr[0]).toMatch(message);
  });

  it('fails with exit status 1 for an unknown key', async () => {
    const { code, stderr } = await keysCommand(['set-expiry', 'key_0000000000000000', '--never']);

    expect(code).toBe(1);
    expect(stderr[0]).toMatch(/^keys: No key key_0000000000000000 on the local stack/);
  });
});

describe('keys command on a deployed stage', () => {
  useDeployedStage();

  it("sets a key's expiry in the stage's keys table, without API Gateway", async () => {
    const { record, token } = await seedKey({ plan: 'free' });

    const { code } = await keysCommand([
      'set-expiry',
      record.keyId,
      '--expires-in',
      '12h',
      '--stage',
      'production',
    ]);

    expect(code).toBe(0);
    expect((await keys.findByToken(token))?.expiresAt).toBeDefined();
    expect(apiGateway.calls()).toEqual([]);
  });
});
