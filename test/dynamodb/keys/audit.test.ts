import { describe, expect, it } from 'vitest';
import { LOCAL_OPERATOR } from '../../../infra/local/stack-files.ts';
import { type AuditEntry, systemAuditContext } from '../../../shared/audit/entry.ts';
import { keys, keysCommand, seedKey, service } from '../../support/keys-command.ts';

describe('keys command history and audit', () => {
  it("prints a key's entries oldest first, each change's reason and the signer as actor", async () => {
    const { code, token } = await keysCommand([
      'create',
      '--plan',
      'free',
      '--reason',
      'trial signup',
    ]);
    const keyId = (await keys.findByToken(token))?.keyId ?? '';
    await keysCommand(['set-plan', keyId, '--plan', 'pro', '--reason', 'invoice 42 paid']);
    await keysCommand(['revoke', keyId]);

    const history = await keysCommand(['history', keyId]);
    const json = await keysCommand(['history', keyId, '--json']);

    expect(code).toBe(0);
    expect(history.code).toBe(0);
    expect(history.stdout[0]).toMatch(
      new RegExp(`^Audit entries of key ${keyId} on the local stack`),
    );
    const rows = history.stdout.slice(2).map((line) => line.split(/\s{2,}/));
    expect(rows.map(([, event]) => event)).toEqual([
      'key.created',
      'key.plan_changed',
      'key.revoked',
    ]);
    expect(rows[1]).toEqual([
      expect.any(String),
      'key.plan_changed',
      keyId,
      LOCAL_OPERATOR.userArn,
      'plan: free -> pro',
      'invoice 42 paid',
    ]);
    const entries = JSON.parse(json.stdout.join('\n')) as AuditEntry[];
    expect(entries.map((entry) => entry.event)).toEqual([
      'key.created',
      'key.plan_changed',
      'key.revoked',
    ]);
    expect(entries[0]).toMatchObject({ keyId, reason: 'trial signup' });
    expect(JSON.stringify(entries)).not.toContain(token);
  });

  it("prints the stage's entries of a window, filtered by actor and event", async () => {
    const since = new Date().toISOString();
    const { record } = await seedKey({ plan: 'free' });
    await keysCommand(['set-scope', record.keyId, '--scope', 'pets:read', '--reason', 'read-only']);
    await keysCommand(['set-expiry', record.keyId, '--expires-in', '30d']);

    const all = await keysCommand(['audit', '--since', since, '--json']);
    const scoped = await keysCommand([
      'audit',
      ...['--since', '1h', '--event', 'key.scope_changed', '--actor', LOCAL_OPERATOR.userArn],
    ]);
    const nobody = await keysCommand([
      'audit',
      ...['--since', since, '--actor', 'arn:aws:iam::111111111111:user/nobody'],
    ]);

    const ofKey = (JSON.parse(all.stdout.join('\n')) as AuditEntry[]).filter(
      (entry) => entry.keyId === record.keyId,
    );
    expect(ofKey.map((entry) => entry.event)).toEqual(['key.scope_changed', 'key.expiry_set']);
    expect(scoped.code).toBe(0);
    expect(scoped.stdout.filter((line) => line.includes(record.keyId))).toEqual([
      expect.stringContaining('key.scope_changed'),
    ]);
    expect(nobody.stdout).toEqual([
      expect.stringMatching(
        /^No audit entries on the local stack .* by arn:aws:iam::111111111111:user\/nobody\.$/,
      ),
    ]);
  });

  it('prints each kind of actor by its id, and an account with its name', async () => {
    const { key } = await service.createKey(
      { plan: 'free', owner: 'cognito:5f1c2a' },
      systemAuditContext('local:npm-start'),
    );
    await service.revokeKey(key.keyId, {
      actor: { type: 'account', id: 'cognito:5f1c2a', name: 'ann@example.com' },
      requestId: 'portal-1',
    });

    const { code, stdout } = await keysCommand(['history', key.keyId]);

    expect(code).toBe(0);
    const actors = stdout.slice(2).map((line) => line.split(/\s{2,}/)[3]);
    expect(actors).toEqual(['local:npm-start', 'cognito:5f1c2a (ann@example.com)']);
  });

  it('refuses an unknown event and a --since that is no time, with exit status 2', async () => {
    const event = await keysCommand(['audit', '--since', '1d', '--event', 'key.deleted']);
    const since = await keysCommand(['audit', '--since', 'yesterday']);

    expect(event.code).toBe(2);
    expect(event.stderr[0]).toContain("argument 'key.deleted' is invalid");
    expect(since.code).toBe(2);
    expect(since.stderr[0]).toContain('Use an ISO 8601 time');
  });
});
