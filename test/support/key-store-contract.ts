/**
 * What every key store does, through both ports (the authorizer's lookup, the keys command's
 * administration), as one suite that each adapter's test file runs: issuing, finding, listing,
 * changing, revoking and rolling keys.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { InvalidScopesError, KeyRevokedError } from '../../shared/keys/errors.ts';
import type { KeyAdministration } from '../../shared/keys/key-administration.ts';
import type { KeyLookup } from '../../shared/keys/key-lookup.ts';
import { InvalidLimitsError } from '../../shared/plans.ts';

/** Runs the key stores' contract on the store `make` builds (once, before the suite). */
export function keyStoreContract(adapter: string, make: () => KeyLookup & KeyAdministration): void {
  describe(`Key store contract: ${adapter}`, () => {
    let keys: KeyLookup & KeyAdministration;
    beforeAll(() => {
      keys = make();
    });

    it('finds an issued key by its token and by its id, and lists it', async () => {
      const { record, token } = await keys.createKey({ plan: 'pro', owner: 'contract' });

      expect(await keys.findByToken(token)).toEqual(record);
      expect(await keys.findById(record.keyId)).toEqual(record);
      expect(await keys.listKeys()).toContainEqual(record);
      expect(await keys.findByToken(`${token}x`)).toBeUndefined();
      expect(await keys.findById('key_0000000000000000')).toBeUndefined();
    });

    it('moves a key between plans, with Enterprise limits only for Enterprise', async () => {
      const { record, token } = await keys.createKey({ plan: 'free' });

      const change = await keys.setPlan(record.keyId, 'enterprise', { perMinute: 7, perDay: 70 });

      expect(change).toEqual({
        previous: record,
        record: { ...record, plan: 'enterprise', perMinute: 7, perDay: 70 },
      });
      expect(await keys.findByToken(token)).toEqual(change?.record);
      await expect(
        keys.setPlan(record.keyId, 'pro', { perMinute: 1, perDay: 1 }),
      ).rejects.toBeInstanceOf(InvalidLimitsError);
      expect(await keys.setPlan('key_0000000000000000', 'pro')).toBeUndefined();
    });

    it('revokes a key once: a second revocation keeps the first time', async () => {
      const { record, token } = await keys.createKey({ plan: 'free' });

      const first = await keys.revokeKey(record.keyId);
      const second = await keys.revokeKey(record.keyId);

      expect(first?.revokedAt).toEqual(expect.any(String));
      expect(second?.revokedAt).toBe(first?.revokedAt);
      expect((await keys.findByToken(token))?.revokedAt).toBe(first?.revokedAt);
    });

    it('sets and removes an expiry', async () => {
      const { record } = await keys.createKey({ plan: 'free' });
      const expiresAt = '2099-01-01T00:00:00.000Z';

      expect(await keys.setExpiry(record.keyId, expiresAt)).toEqual({
        previous: record,
        record: { ...record, expiresAt },
      });
      expect((await keys.setExpiry(record.keyId, undefined))?.record).toEqual(record);
      expect(await keys.findById(record.keyId)).toEqual(record);
    });

    it('issues a key with every scope unless given some; pets:write comes with pets:read', async () => {
      const all = await keys.createKey({ plan: 'free' });
      const reader = await keys.createKey({ plan: 'free', scopes: ['pets:read'] });
      const writer = await keys.createKey({ plan: 'free', scopes: ['pets:write'] });

      expect(all.record.scopes).toEqual(['pets:read', 'pets:write']);
      expect(reader.record.scopes).toEqual(['pets:read']);
      expect(writer.record.scopes).toEqual(['pets:read', 'pets:write']);
      expect(await keys.findByToken(reader.token)).toEqual(reader.record);
      await expect(keys.createKey({ plan: 'free', scopes: [] })).rejects.toBeInstanceOf(
        InvalidScopesError,
      );
    });

    it('sets the scopes of every token of a key, and a roll keeps them', async () => {
      const { record, token } = await keys.createKey({ plan: 'pro' });
      const rolled = await keys.rollKey(record.keyId, { graceSeconds: 3600 });

      const change = await keys.setScopes(record.keyId, ['pets:read']);
      const again = await keys.rollKey(record.keyId, { graceSeconds: 3600 });

      expect(change).toEqual({
        previous: rolled?.record,
        record: { ...rolled?.record, scopes: ['pets:read'] },
      });
      expect((await keys.findByToken(rolled?.token ?? ''))?.scopes).toEqual(['pets:read']);
      expect(again?.record.scopes).toEqual(['pets:read']);
      expect(await keys.findByToken(token)).toBeUndefined();
      await expect(keys.setScopes(record.keyId, [])).rejects.toBeInstanceOf(InvalidScopesError);
      expect(await keys.setScopes('key_0000000000000000', ['pets:read'])).toBeUndefined();
    });

    it('rolls a key: the new token is the same key, the old one keeps working for its grace', async () => {
      const { record, token } = await keys.createKey({ plan: 'pro' });

      const rolled = await keys.rollKey(record.keyId, { graceSeconds: 3600 });

      expect(rolled?.record).toEqual({ ...record, keyHash: expect.any(String) });
      expect(rolled?.record.keyHash).not.toBe(record.keyHash);
      expect(await keys.findByToken(rolled?.token ?? '')).toEqual(rolled?.record);
      expect(await keys.findByToken(token)).toMatchObject({
        keyId: record.keyId,
        graceUntil: rolled?.graceUntil,
      });
      expect(await keys.findById(record.keyId)).toEqual(rolled?.record);
      expect(await keys.listKeys()).toContainEqual({
        ...rolled?.record,
        oldTokenUntil: rolled?.graceUntil,
      });
    });

    it('rolls without grace by deleting the old token, and never rolls a revoked key', async () => {
      const { record, token } = await keys.createKey({ plan: 'pro' });

      const rolled = await keys.rollKey(record.keyId, { graceSeconds: 0 });
      await keys.revokeKey(record.keyId);

      expect(rolled?.graceUntil).toBeUndefined();
      expect(await keys.findByToken(token)).toBeUndefined();
      await expect(keys.rollKey(record.keyId, { graceSeconds: 0 })).rejects.toBeInstanceOf(
        KeyRevokedError,
      );
      expect(await keys.rollKey('key_0000000000000000', { graceSeconds: 0 })).toBeUndefined();
    });
  });
}
