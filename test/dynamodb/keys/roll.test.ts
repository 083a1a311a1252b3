import { describe, expect, it } from 'vitest';
import { hashToken } from '../../../shared/keys/token.ts';
import { everyKey } from '../../support/every-key.ts';
import {
  apiGateway,
  ban,
  bans,
  currentOf,
  enterpriseKey,
  keys,
  keysCommand,
  seedKey,
  service,
  TEST_CONTEXT,
  useDeployedStage,
} from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it('rolls a key: a new local token of the same key, the old one kept for 24 hours', async () => {
    const { record, token: oldToken } = await enterpriseKey();
    const bannedUntil = await ban(record.keyId);
    const before = Date.now();

    const { code, stdout, stderr, token } = await keysCommand(['roll', record.keyId]);

    expect(stderr).toEqual([]);
    expect(code).toBe(0);
    expect(token).toMatch(/^pet_local_[0-9A-Za-z]{38}$/);
    expect(await keys.findByToken(token)).toEqual({ ...record, keyHash: hashToken(token) });
    const old = await keys.findByToken(oldToken);
    const graceMs = Date.parse(old?.graceUntil ?? '') - before;
    expect(graceMs).toBeGreaterThanOrEqual(86_400_000);
    expect(graceMs).toBeLessThan(86_400_000 + 60_000);
    expect(stdout[0]).toBe(
      `Rolled key ${record.keyId} on ${stdout[0]?.slice(`Rolled key ${record.keyId} on `.length)}`,
    );
    expect(stdout).toContain(`  old token: works until ${old?.graceUntil}, then 401 (within 60 s)`);
    // The ban lives on the key id, so the new token is banned as the old one was.
    expect(await bans.banState(record.keyId, Date.now())).toEqual({ bannedUntil });
  });

  it('ends the old token at once with --grace 0', async () => {
    const { record, token: oldToken } = await seedKey({ plan: 'free' });

    const { code, stdout, token } = await keysCommand(['roll', record.keyId, '--grace', '0']);

    expect(code).toBe(0);
    expect(await keys.findByToken(oldToken)).toBeUndefined();
    expect(await currentOf(record.keyId)).toMatchObject({ keyHash: hashToken(token) });
    expect(stdout).toContain('  old token: refused from now on (within 60 s)');
  });

  it('lists a rolled key once, with the end of its old token', async () => {
    const { record } = await seedKey({ plan: 'free', owner: 'roll list' });
    await keysCommand(['roll', record.keyId, '--grace', '15m']);
    const old = (await everyKey(keys)).find((key) => key.keyId === record.keyId);

    const { stdout } = await keysCommand(['list']);

    const lines = stdout.filter((line) => line.startsWith(record.keyId));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`active, old token until ${old?.oldTokenUntil}`);
  });

  it.each([
    [['--grace', '31d'], /--grace.*At most 30d/],
    [['--grace', '1y'], /--grace.*30s, 15m, 24h, 30d/],
    [['--grace', '-1h'], /--grace.*30s, 15m, 24h, 30d/],
  ])('refuses %j as a usage error, changing nothing', async (args, message) => {
    const { record, token } = await seedKey({ plan: 'free' });

    const { code, stderr } = await keysCommand(['roll', record.keyId, ...args]);

    expect(code).toBe(2);
    expect(stderr[0]).toMatch(message);
    expect(await keys.findByToken(token)).toEqual(record);
  });

  it('refuses to roll a revoked or unknown key with exit status 1', async () => {
    const { record } = await seedKey({ plan: 'free' });
    await service.revokeKey(record.keyId, TEST_CONTEXT);

    const revoked = await keysCommand(['roll', record.keyId]);
    const unknown = await keysCommand(['roll', 'key_0000000000000000']);

    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toEqual([
      `keys: Key ${record.keyId} was revoked; a revoked key is not rolled.`,
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr[0]).toMatch(/^keys: No key key_0000000000000000 on the local stack/);
  });
});

describe('keys command on a deployed stage', () => {
  useDeployedStage();

  it('rolls a key to a token of the stage, keeping its API key: no API Gateway call', async () => {
    const { record, token: oldToken } = await seedKey({ plan: 'pro' });

    const { code, token } = await keysCommand([
      'roll',
      record.keyId,
      '--grace',
      '2h',
      '--stage',
      'staging',
    ]);

    expect(code).toBe(0);
    expect(token).toMatch(/^pet_stg_[0-9A-Za-z]{38}$/);
    expect(await keys.findByToken(token)).toMatchObject({
      keyId: record.keyId,
      usageIdentifier: record.usageIdentifier,
    });
    expect((await keys.findByToken(oldToken))?.graceUntil).toBeDefined();
    expect(apiGateway.calls()).toEqual([]);
  });
});
