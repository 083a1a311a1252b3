/**
 * The keys command's administration (`KeyAdministration`) on DynamoDB: issuing, listing, revoking,
 * moving between plans and expiring keys, as the keys table holds them. Rolls and concurrent
 * changes: key-rolls.test.ts.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidLimitsError } from '../../shared/plans.ts';
import {
  client,
  enterpriseKeyExpiring,
  keys,
  setNow,
  storedItem,
  tableName,
} from '../support/keys-table.ts';

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => client.destroy());

describe('DynamoDBKeyStore as the key administration', () => {
  it('stores no owner when none is given', async () => {
    const { record } = await keys.createKey({ plan: 'free' });
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: { keyHash: record.keyHash } }),
    );
    expect(Item).not.toHaveProperty('owner');
  });

  it('issues different ids, hashes and usage identifiers to each key', async () => {
    const a = await keys.createKey({ plan: 'free' });
    const b = await keys.createKey({ plan: 'free' });
    expect(a.record.keyId).not.toBe(b.record.keyId);
    expect(a.record.keyHash).not.toBe(b.record.keyHash);
    expect(a.record.usageIdentifier).not.toBe(b.record.usageIdentifier);
  });

  it('revokes a key, and revoking it again keeps the first revocation time', async () => {
    const { record, token } = await keys.createKey({ plan: 'free' });

    setNow('2031-05-06T07:08:09.000Z');
    const first = await keys.revokeKey(record.keyId);
    setNow('2032-01-01T00:00:00.000Z');
    const second = await keys.revokeKey(record.keyId);

    expect(first).toEqual({ ...record, revokedAt: '2031-05-06T07:08:09.000Z' });
    expect(second).toEqual(first);
    expect(await keys.findByToken(token)).toEqual(first);
  });

  it('answers undefined when revoking an unknown key, and creates no record', async () => {
    const before = (await keys.listKeys()).length;
    expect(await keys.revokeKey('key_ffffffffffffffff')).toBeUndefined();
    expect(await keys.listKeys()).toHaveLength(before);
  });

  it('lists every key, oldest first', async () => {
    const issue = async (iso: string) => {
      setNow(iso);
      return (await keys.createKey({ plan: 'free', owner: iso })).record.keyId;
    };
    // Issued out of order, so that neither issue order nor hash order is oldest first.
    const middle = await issue('2020-06-01T00:00:00.000Z');
    const newest = await issue('2020-06-03T00:00:00.000Z');
    const oldest = await issue('2020-05-31T00:00:00.000Z');
    vi.useRealTimers();

    const listed = await keys.listKeys();

    const createdAt = listed.map((key) => key.createdAt);
    expect(createdAt).toEqual([...createdAt].sort());
    expect(listed.slice(0, 3).map((key) => key.keyId)).toEqual([oldest, middle, newest]);
  });

  it.each([
    { plan: 'enterprise', limits: undefined, error: /needs its own per-minute and per-day/ },
    { plan: 'enterprise', limits: { perMinute: 100, perDay: 99 }, error: /per-day limit/ },
    { plan: 'enterprise', limits: { perMinute: 0, perDay: 10 }, error: /per-minute limit/ },
    { plan: 'free', limits: { perMinute: 100, perDay: 1_000 }, error: /only an Enterprise key/ },
  ] as const)(
    'refuses to issue a $plan key with limits $limits, and stores nothing',
    async ({ plan, limits, error }) => {
      const before = await keys.listKeys();

      await expect(keys.createKey({ plan, limits })).rejects.toThrow(error);

      expect(await keys.listKeys()).toEqual(before);
    },
  );

  it('moves a key from a standard plan to Enterprise, storing its limits', async () => {
    const { record } = await keys.createKey({ plan: 'pro', owner: 'mover' });

    const changed = await keys.setPlan(record.keyId, 'enterprise', {
      perMinute: 2_000,
      perDay: 500_000,
    });

    const moved = { ...record, plan: 'enterprise', perMinute: 2_000, perDay: 500_000 };
    expect(changed).toEqual({ previous: record, record: moved });
    expect(await storedItem(record.keyHash)).toEqual(moved);
  });

  it('gives an Enterprise key new limits', async () => {
    const { record } = await keys.createKey({
      plan: 'enterprise',
      limits: { perMinute: 100, perDay: 10_000 },
    });

    const changed = await keys.setPlan(record.keyId, 'enterprise', { perMinute: 200, perDay: 300 });

    expect(changed?.previous).toEqual(record);
    expect(await storedItem(record.keyHash)).toEqual({ ...record, perMinute: 200, perDay: 300 });
  });

  it('moves an Enterprise key to a standard plan, removing its own limits', async () => {
    const { record } = await keys.createKey({
      plan: 'enterprise',
      limits: { perMinute: 100, perDay: 10_000 },
    });

    const changed = await keys.setPlan(record.keyId, 'business');

    const { perMinute: _perMinute, perDay: _perDay, ...rest } = record;
    expect(changed).toEqual({ previous: record, record: { ...rest, plan: 'business' } });
    expect(await storedItem(record.keyHash)).toEqual({ ...rest, plan: 'business' });
  });

  it('keeps the revocation of a key it moves', async () => {
    const { record } = await keys.createKey({ plan: 'free' });
    const revoked = await keys.revokeKey(record.keyId);

    await keys.setPlan(record.keyId, 'pro');

    expect(await storedItem(record.keyHash)).toEqual({ ...revoked, plan: 'pro' });
  });

  it('refuses limits that do not fit the new plan, and changes nothing', async () => {
    const { record } = await keys.createKey({ plan: 'free' });

    await expect(keys.setPlan(record.keyId, 'enterprise')).rejects.toThrow(InvalidLimitsError);
    await expect(keys.setPlan(record.keyId, 'pro', { perMinute: 10, perDay: 100 })).rejects.toThrow(
      InvalidLimitsError,
    );

    expect(await storedItem(record.keyHash)).toEqual(record);
  });

  it('answers undefined when moving an unknown key, and creates no record', async () => {
    const before = await keys.listKeys();

    expect(await keys.setPlan('key_eeeeeeeeeeeeeeee', 'pro')).toBeUndefined();

    expect(await keys.listKeys()).toEqual(before);
  });

  it('removes the expiry of a key', async () => {
    const { record } = await enterpriseKeyExpiring('2040-01-01T00:00:00.000Z');

    const changed = await keys.setExpiry(record.keyId, undefined);

    expect(changed?.previous.expiresAt).toBe('2040-01-01T00:00:00.000Z');
    expect(await storedItem(record.keyHash)).not.toHaveProperty('expiresAt');
  });
});
