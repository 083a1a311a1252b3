import { describe, expect, it } from 'vitest';
import { everyKey } from '../../support/every-key.ts';
import { ban, enterpriseKey, keys, keysCommand, seedKey } from '../../support/keys-command.ts';

describe('keys command on the local stack', () => {
  it('lists every key with its plan, limits, scopes, ban, status, expiry, last day used, owner and creation time, never a token or hash', async () => {
    const issued = await seedKey({ plan: 'pro', owner: 'list test' });
    const revoked = await seedKey(
      { plan: 'free', scopes: ['pets:read'] },
      { revokedAt: new Date().toISOString() },
    );
    const enterprise = await enterpriseKey({ perMinute: 5_000, perDay: 2_000_000 });
    const bannedUntil = await ban(enterprise.record.keyId);

    const { code, stdout } = await keysCommand(['list']);

    expect(code).toBe(0);
    expect(stdout[0]?.split(/\s{2,}/)).toEqual([
      'KEY ID',
      'PLAN',
      'PER MINUTE',
      'PER DAY',
      'SCOPES',
      'BAN',
      'STATUS',
      'EXPIRES',
      'LAST USED',
      'OWNER',
      'CREATED',
    ]);
    const rows = stdout.slice(1).map((line) => line.split(/\s{2,}/));
    expect(rows).toHaveLength((await everyKey(keys)).length);
    expect(rows).toContainEqual([
      issued.record.keyId,
      'Pro',
      '300',
      '10,000',
      'pets:read,pets:write',
      'not banned',
      'active',
      'never',
      'not in 35 days',
      'list test',
      issued.record.createdAt,
    ]);
    expect(rows).toContainEqual([
      revoked.record.keyId,
      'Free',
      '60',
      '1,000',
      'pets:read',
      'not banned',
      'revoked',
      'never',
      'not in 35 days',
      '-',
      revoked.record.createdAt,
    ]);
    expect(rows).toContainEqual([
      enterprise.record.keyId,
      'Enterprise',
      '5,000',
      '2,000,000',
      'pets:read,pets:write',
      `banned until ${new Date(bannedUntil * 1000).toISOString()}`,
      'active',
      'never',
      new Date().toISOString().slice(0, 10),
      'Big Pets Inc',
      enterprise.record.createdAt,
    ]);
    const output = stdout.join('\n');
    for (const { record, token } of [issued, revoked, enterprise]) {
      expect(output).not.toContain(token);
      expect(output).not.toContain(record.keyHash);
      expect(output).not.toContain(record.usageIdentifier);
    }
  });
});
