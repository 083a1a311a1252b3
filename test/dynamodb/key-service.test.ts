/**
 * The key service on DynamoDB (its store, `DynamoDBKeyStore`): issuing, listing, revoking, moving
 * between plans and expiring keys, as the keys table holds them, each change reading the key once.
 * Rolls and concurrent changes: key-rolls.test.ts; the audit entries: key-service-writes.test.ts.
 */

import { describe, expect, it, vi } from 'vitest';
import {
  InvalidScopesError,
  KeyNotFoundError,
  KeyRevokedError,
} from '../../shared/keys/key-errors.ts';
import { InvalidLimitsError } from '../../shared/plans.ts';
import { everyKey } from '../support/every-key.ts';
import {
  currentOf,
  enterpriseKeyExpiring,
  issueKey,
  recordingService,
  service,
  setNow,
  store,
  storedItem,
} from '../support/keys-table.ts';
import { TEST_CONTEXT } from '../support/test-keys.ts';

const recording = recordingService();

describe('the key service on DynamoDB', () => {
  it('stores no owner when none is given', async () => {
    const { record } = await issueKey({ plan: 'free' });

    expect(await storedItem(record.keyHash)).not.toHaveProperty('owner');
  });

  it('issues different ids, hashes and usage identifiers to each key', async () => {
    const a = await issueKey({ plan: 'free' });
    const b = await issueKey({ plan: 'free' });
    expect(a.record.keyId).not.toBe(b.record.keyId);
    expect(a.record.keyHash).not.toBe(b.record.keyHash);
    expect(a.record.usageIdentifier).not.toBe(b.record.usageIdentifier);
  });

  it('revokes a key, and revoking it again keeps the first revocation time', async () => {
    const { record, token } = await issueKey({ plan: 'free' });

    setNow('2031-05-06T07:08:09.000Z');
    const first = await service.revokeKey(record.keyId, TEST_CONTEXT);
    setNow('2032-01-01T00:00:00.000Z');
    const second = await service.revokeKey(record.keyId, TEST_CONTEXT);

    const revoked = { ...record, revokedAt: '2031-05-06T07:08:09.000Z' };
    expect(first.key.revokedAt).toBe(revoked.revokedAt);
    expect(second.key).toEqual(first.key);
    expect(await store.findByToken(token)).toEqual(revoked);
  });

  it('refuses to revoke an unknown key, and creates no record', async () => {
    const before = (await everyKey(store)).length;
    await expect(service.revokeKey('key_ffffffffffffffff', TEST_CONTEXT)).rejects.toThrow(
      KeyNotFoundError,
    );
    expect(await everyKey(store)).toHaveLength(before);
  });

  it("lists an owner's keys oldest first, a page at a time", async () => {
    const owner = `owner-${Date.now()}`;
    const issue = async (iso: string) => {
      setNow(iso);
      return (await issueKey({ plan: 'free', owner })).record.keyId;
    };
    // Issued out of order, so that neither issue order nor hash order is oldest first.
    const middle = await issue('2020-06-01T00:00:00.000Z');
    const newest = await issue('2020-06-03T00:00:00.000Z');
    const oldest = await issue('2020-05-31T00:00:00.000Z');
    vi.useRealTimers();

    const first = await service.listKeys({ owner, limit: 2 });
    const second = await service.listKeys({ owner, limit: 2, cursor: first.cursor });

    expect(first.keys.map(({ key }) => key.keyId)).toEqual([oldest, middle]);
    expect(second.keys.map(({ key }) => key.keyId)).toEqual([newest]);
    expect(second.cursor).toBeUndefined();
  });

  it.each([
    { plan: 'enterprise', limits: undefined, error: /needs its own per-minute and per-day/ },
    { plan: 'enterprise', limits: { perMinute: 100, perDay: 99 }, error: /per-day limit/ },
    { plan: 'enterprise', limits: { perMinute: 0, perDay: 10 }, error: /per-minute limit/ },
    { plan: 'free', limits: { perMinute: 100, perDay: 1_000 }, error: /only an Enterprise key/ },
  ] as const)(
    'refuses to issue a $plan key with limits $limits, and stores nothing',
    async ({ plan, limits, error }) => {
      const before = await everyKey(store);

      await expect(service.createKey({ plan, limits }, TEST_CONTEXT)).rejects.toThrow(error);

      expect(await everyKey(store)).toEqual(before);
    },
  );

  it('refuses a key or a change with no scope, and changes nothing', async () => {
    const { record } = await issueKey({ plan: 'free' });
    const before = await everyKey(store);

    await expect(
      service.createKey({ plan: 'free', scopes: [] }, TEST_CONTEXT),
    ).rejects.toBeInstanceOf(InvalidScopesError);
    await expect(service.setScopes(record.keyId, [], TEST_CONTEXT)).rejects.toBeInstanceOf(
      InvalidScopesError,
    );

    expect(await everyKey(store)).toEqual(before);
  });

  it('moves a key from a standard plan to Enterprise, storing its limits', async () => {
    const { record } = await issueKey({ plan: 'pro', owner: 'mover' });

    const changed = await service.setPlan(
      record.keyId,
      'enterprise',
      { perMinute: 2_000, perDay: 500_000 },
      TEST_CONTEXT,
    );

    const moved = { ...record, plan: 'enterprise', perMinute: 2_000, perDay: 500_000 };
    expect(changed.previous.plan).toBe('pro');
    expect(changed.key).toMatchObject({ plan: 'enterprise', perMinute: 2_000, perDay: 500_000 });
    expect(await storedItem(record.keyHash)).toEqual(moved);
  });

  it('gives an Enterprise key new limits', async () => {
    const { record } = await issueKey({
      plan: 'enterprise',
      limits: { perMinute: 100, perDay: 10_000 },
    });

    const changed = await service.setPlan(
      record.keyId,
      'enterprise',
      { perMinute: 200, perDay: 300 },
      TEST_CONTEXT,
    );

    expect(changed.previous).toMatchObject({ perMinute: 100, perDay: 10_000 });
    expect(await storedItem(record.keyHash)).toEqual({ ...record, perMinute: 200, perDay: 300 });
  });

  it('moves an Enterprise key to a standard plan, removing its own limits', async () => {
    const { record } = await issueKey({
      plan: 'enterprise',
      limits: { perMinute: 100, perDay: 10_000 },
    });

    await service.setPlan(record.keyId, 'business', undefined, TEST_CONTEXT);

    const { perMinute: _perMinute, perDay: _perDay, ...rest } = record;
    expect(await storedItem(record.keyHash)).toEqual({ ...rest, plan: 'business' });
  });

  it('refuses to move a revoked key, which keeps its plan', async () => {
    const { record } = await issueKey({ plan: 'free' });
    await service.revokeKey(record.keyId, TEST_CONTEXT);
    const revoked = await currentOf(record.keyId);

    await expect(service.setPlan(record.keyId, 'pro', undefined, TEST_CONTEXT)).rejects.toThrow(
      KeyRevokedError,
    );

    expect(await storedItem(record.keyHash)).toEqual(revoked);
  });

  it('refuses limits that do not fit the new plan, and changes nothing', async () => {
    const { record } = await issueKey({ plan: 'free' });

    await expect(
      service.setPlan(record.keyId, 'enterprise', undefined, TEST_CONTEXT),
    ).rejects.toThrow(InvalidLimitsError);
    await expect(
      service.setPlan(record.keyId, 'pro', { perMinute: 10, perDay: 100 }, TEST_CONTEXT),
    ).rejects.toThrow(InvalidLimitsError);

    expect(await storedItem(record.keyHash)).toEqual(record);
  });

  it('refuses to move an unknown key, and creates no record', async () => {
    const before = await everyKey(store);

    await expect(
      service.setPlan('key_eeeeeeeeeeeeeeee', 'pro', undefined, TEST_CONTEXT),
    ).rejects.toThrow(KeyNotFoundError);

    expect(await everyKey(store)).toEqual(before);
  });

  it('removes the expiry of a key', async () => {
    const { record } = await enterpriseKeyExpiring('2040-01-01T00:00:00.000Z');

    const changed = await service.setExpiry(record.keyId, undefined, TEST_CONTEXT);

    expect(changed.previous.expiresAt).toBe('2040-01-01T00:00:00.000Z');
    expect(await storedItem(record.keyHash)).not.toHaveProperty('expiresAt');
  });

  it('reads the key once for a change: its head and its row, then one transaction', async () => {
    const { record } = await issueKey({ plan: 'free' });
    const { keys, calls } = recording;

    await keys.setPlan(record.keyId, 'pro', undefined, TEST_CONTEXT);
    await keys.setScopes(record.keyId, ['pets:read'], TEST_CONTEXT);

    expect(calls.map(({ command }) => command)).toEqual([
      ...['GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand'],
      ...['GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand'],
    ]);
  });
});
