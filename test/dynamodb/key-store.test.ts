import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { createContainer } from '../../shared/dynamodb/container.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import { KeyChangedError } from '../../shared/keys/errors.ts';
import { keyRefusal, limitsOfKey } from '../../shared/keys/key-records.ts';
import { generateToken, hashToken, TOKEN_PREFIXES } from '../../shared/keys/token.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';

const client = createDocumentClient();
const tableName = requiredSetting(readSettings(), KEYS_TABLE.envVar);
const keys = new DynamoDBKeyStore(client, tableName);

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => client.destroy());

/** The keys table's item for a key hash, as DynamoDB holds it. */
async function storedItem(keyHash: string) {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: { keyHash } }));
  return Item;
}

/** Freezes `new Date()` (only Date: the SDK's timers keep running) at this ISO time. */
function setNow(iso: string) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
}

/**
 * A key store whose first transaction waits for `change` to be made through another client
 * first: a concurrent change landing between the store's read and its write, every time.
 */
function interleaved(change: () => Promise<unknown>): DynamoDBKeyStore {
  const racing = createDocumentClient();
  let pending: (() => Promise<unknown>) | undefined = change;
  racing.middlewareStack.add(
    (next) => async (args) => {
      const run = pending;
      if (run && 'TransactItems' in (args.input as object)) {
        pending = undefined;
        await run();
      }
      return next(args);
    },
    { step: 'initialize' },
  );
  return new DynamoDBKeyStore(racing, tableName);
}

/** Every row of a key as DynamoDB holds them, ordered by hash. */
async function rowsOf(keyId: string) {
  const { Items = [] } = await client.send(
    new ScanCommand({
      TableName: tableName,
      FilterExpression: 'keyId = :keyId',
      ExpressionAttributeValues: { ':keyId': keyId },
    }),
  );
  return Items.sort((a, b) => String(a.keyHash).localeCompare(String(b.keyHash)));
}

/** An Enterprise key that expires at `expiresAt`. */
function enterpriseKeyExpiring(expiresAt: string) {
  return keys.createKey({
    plan: 'enterprise',
    owner: 'Roller Ltd',
    limits: { perMinute: 100, perDay: 1_000 },
    expiresAt,
  });
}

describe('DynamoDBKeyStore', () => {
  it('issues a key whose record holds the hash of the token, never the token', async () => {
    setNow('2030-01-02T03:04:05.678Z');
    const { record, token } = await keys.createKey({ plan: 'business', owner: 'Acme Ltd' });

    expect(record).toEqual({
      keyHash: hashToken(token),
      keyId: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      plan: 'business',
      owner: 'Acme Ltd',
      scopes: ['pets:read', 'pets:write'],
      usageIdentifier: expect.any(String),
      createdAt: '2030-01-02T03:04:05.678Z',
    });
    expect(record.usageIdentifier).not.toBe(token);
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: { keyHash: record.keyHash } }),
    );
    expect(Item).toEqual(record);
    const stored = JSON.stringify(Item);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(TOKEN_PREFIXES.local.length));
  });

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

  it('finds a key by its token and by its id', async () => {
    const { record, token } = await keys.createKey({ plan: 'pro' });

    expect(await keys.findByToken(token)).toEqual(record);
    expect(await keys.findById(record.keyId)).toEqual(record);
  });

  it('finds nothing for an unknown token or id', async () => {
    expect(await keys.findByToken(generateToken())).toBeUndefined();
    expect(await keys.findById('key_0000000000000000')).toBeUndefined();
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

  it('issues an Enterprise key with its own limits on the record', async () => {
    const { record, token } = await keys.createKey({
      plan: 'enterprise',
      limits: { perMinute: 5_000, perDay: 2_000_000 },
    });

    expect(record).toMatchObject({ plan: 'enterprise', perMinute: 5_000, perDay: 2_000_000 });
    expect(await keys.findByToken(token)).toEqual(record);
    expect(limitsOfKey(record)).toEqual({ perMinute: 5_000, perDay: 2_000_000 });
  });

  it('stores no limits on a key of a standard plan, which reads them from its plan', async () => {
    const { record } = await keys.createKey({ plan: 'pro' });

    const item = await storedItem(record.keyHash);
    expect(item).not.toHaveProperty('perMinute');
    expect(item).not.toHaveProperty('perDay');
    expect(limitsOfKey(record)).toEqual({ perMinute: 300, perDay: 10_000 });
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

    await expect(keys.setPlan(record.keyId, 'enterprise')).rejects.toThrow(RangeError);
    await expect(keys.setPlan(record.keyId, 'pro', { perMinute: 10, perDay: 100 })).rejects.toThrow(
      RangeError,
    );

    expect(await storedItem(record.keyHash)).toEqual(record);
  });

  it('answers undefined when moving an unknown key, and creates no record', async () => {
    const before = await keys.listKeys();

    expect(await keys.setPlan('key_eeeeeeeeeeeeeeee', 'pro')).toBeUndefined();

    expect(await keys.listKeys()).toEqual(before);
  });

  it('rolls a key: a new token of the same key, the old one kept for the grace', async () => {
    const { record, token } = await enterpriseKeyExpiring('2040-01-01T00:00:00.000Z');
    setNow('2030-01-01T00:00:00.000Z');

    const rolled = await keys.rollKey(record.keyId, { graceSeconds: 3600, tokenStage: 'staging' });

    expect(rolled?.token).toMatch(/^pet_stg_/);
    expect(rolled?.record).toEqual({ ...record, keyHash: hashToken(rolled?.token ?? '') });
    expect(rolled?.graceUntil).toBe('2030-01-01T01:00:00.000Z');
    expect(await keys.findByToken(rolled?.token ?? '')).toEqual(rolled?.record);
    expect(await keys.findByToken(token)).toEqual({
      ...record,
      graceUntil: '2030-01-01T01:00:00.000Z',
    });
    expect(await keys.findById(record.keyId)).toEqual(rolled?.record);
    const listed = (await keys.listKeys()).filter((key) => key.keyId === record.keyId);
    expect(listed).toEqual([{ ...rolled?.record, oldTokenUntil: '2030-01-01T01:00:00.000Z' }]);
  });

  it('ends the older grace when a key is rolled again: at most two tokens live', async () => {
    const { record, token: first } = await keys.createKey({ plan: 'free' });
    const second = await keys.rollKey(record.keyId, { graceSeconds: 3600 });
    const third = await keys.rollKey(record.keyId, { graceSeconds: 3600 });

    expect(await keys.findByToken(first)).toBeUndefined();
    expect(await keys.findByToken(second?.token ?? '')).toMatchObject({
      graceUntil: expect.any(String),
    });
    expect(await keys.findByToken(third?.token ?? '')).toEqual(third?.record);
  });

  it('ends the old token at once for a grace of 0', async () => {
    const { record, token } = await keys.createKey({ plan: 'free' });
    const rolled = await keys.rollKey(record.keyId, { graceSeconds: 0 });

    expect(rolled?.graceUntil).toBeUndefined();
    expect(await keys.findByToken(token)).toBeUndefined();
    expect(await keys.findById(record.keyId)).toEqual(rolled?.record);
  });

  it('revokes, moves and expires every token of a rolled key', async () => {
    const { record, token } = await keys.createKey({ plan: 'free' });
    const rolled = await keys.rollKey(record.keyId, { graceSeconds: 3600 });

    await keys.setPlan(record.keyId, 'pro');
    await keys.setExpiry(record.keyId, '2039-01-01T00:00:00.000Z');
    await keys.revokeKey(record.keyId);

    for (const each of [token, rolled?.token ?? '']) {
      expect(await keys.findByToken(each)).toMatchObject({
        plan: 'pro',
        expiresAt: '2039-01-01T00:00:00.000Z',
        revokedAt: expect.any(String),
      });
    }
    await expect(keys.rollKey(record.keyId, { graceSeconds: 60 })).rejects.toThrow(/revoked/);
  });

  it('removes the expiry of a key', async () => {
    const { record } = await enterpriseKeyExpiring('2040-01-01T00:00:00.000Z');

    const changed = await keys.setExpiry(record.keyId, undefined);

    expect(changed?.previous.expiresAt).toBe('2040-01-01T00:00:00.000Z');
    expect(await storedItem(record.keyHash)).not.toHaveProperty('expiresAt');
  });

  it('answers undefined when rolling or expiring an unknown key', async () => {
    expect(await keys.rollKey('key_dddddddddddddddd', { graceSeconds: 60 })).toBeUndefined();
    expect(await keys.setExpiry('key_dddddddddddddddd', undefined)).toBeUndefined();
  });

  it.each([
    ['revoke', (store: DynamoDBKeyStore, keyId: string) => store.revokeKey(keyId)],
    [
      'set-scope',
      (store: DynamoDBKeyStore, keyId: string) => store.setScopes(keyId, ['pets:read']),
    ],
  ])(
    'reaches the newest token after two quick rolls with %s, reading only the base table strongly',
    async (_, change) => {
      const { record } = await keys.createKey({ plan: 'free' });
      const reads: Record<string, unknown>[] = [];
      const recorded = createDocumentClient();
      recorded.middlewareStack.add(
        (next) => async (args) => {
          const input = args.input as Record<string, unknown>;
          if (!('TransactItems' in input)) reads.push(input);
          return next(args);
        },
        { step: 'initialize' },
      );
      const store = new DynamoDBKeyStore(recorded, tableName);

      const second = await store.rollKey(record.keyId, { graceSeconds: 3600 });
      const third = await store.rollKey(record.keyId, { graceSeconds: 3600 });
      await change(store, record.keyId);

      // No index and no eventually consistent read: nothing a lag could hide is ever read.
      expect(reads.length).toBeGreaterThan(0);
      for (const read of reads) {
        expect(read).not.toHaveProperty('IndexName');
        expect(read).toMatchObject({ ConsistentRead: true });
      }
      const live = await rowsOf(record.keyId);
      expect(live.map((row) => row.keyHash).sort()).toEqual(
        [second?.record.keyHash, third?.record.keyHash].sort(),
      );
      for (const row of live) {
        expect(row).toMatchObject(
          _ === 'revoke' ? { revokedAt: expect.any(String) } : { scopes: ['pets:read'] },
        );
      }
      recorded.destroy();
    },
  );

  it('keeps a head item per key that names exactly its live rows', async () => {
    const { record } = await keys.createKey({ plan: 'free' });
    expect(await storedItem(record.keyId)).toEqual({
      keyHash: record.keyId,
      currentHash: record.keyHash,
    });

    const rolled = await keys.rollKey(record.keyId, { graceSeconds: 60 });
    expect(await storedItem(record.keyId)).toEqual({
      keyHash: record.keyId,
      currentHash: rolled?.record.keyHash,
      rolledOutHash: record.keyHash,
    });

    const ended = await keys.rollKey(record.keyId, { graceSeconds: 0 });
    expect(await storedItem(record.keyId)).toEqual({
      keyHash: record.keyId,
      currentHash: ended?.record.keyHash,
    });
    expect((await rowsOf(record.keyId)).map((row) => row.keyHash)).toEqual([ended?.record.keyHash]);
    expect((await keys.listKeys()).filter((key) => key.keyId === record.keyId)).toEqual([
      ended?.record,
    ]);
  });

  it.each([
    ['rolled', (keyId: string) => keys.rollKey(keyId, { graceSeconds: 60 })],
    ['moved', (keyId: string) => keys.setPlan(keyId, 'pro')],
    ['revoked', (keyId: string) => keys.revokeKey(keyId)],
  ])('cancels a roll when the key was %s between its read and its write', async (_, change) => {
    const { record } = await keys.createKey({ plan: 'free' });
    let afterChange: unknown[] = [];
    const racer = interleaved(async () => {
      await change(record.keyId);
      afterChange = await rowsOf(record.keyId);
    });

    await expect(racer.rollKey(record.keyId, { graceSeconds: 60 })).rejects.toThrow(
      KeyChangedError,
    );

    // Only the interleaved change happened: the roll left no row and no grace behind.
    expect(await rowsOf(record.keyId)).toEqual(afterChange);
  });

  it("moves every token of a key rolled between the move's read and its write", async () => {
    const { record, token } = await keys.createKey({ plan: 'free' });
    let rolled: Awaited<ReturnType<typeof keys.rollKey>>;
    const racer = interleaved(async () => {
      rolled = await keys.rollKey(record.keyId, { graceSeconds: 60 });
    });

    const changed = await racer.setPlan(record.keyId, 'business');

    expect(changed?.previous.plan).toBe('free');
    for (const each of [token, rolled?.token ?? '']) {
      expect((await keys.findByToken(each))?.plan).toBe('business');
    }
  });

  it('reports as previous what each of two concurrent moves really replaced', async () => {
    const { record } = await keys.createKey({ plan: 'free' });

    const [toPro, toBusiness] = await Promise.all([
      keys.setPlan(record.keyId, 'pro'),
      keys.setPlan(record.keyId, 'business'),
    ]);

    // One replaced Free; the other, retried, replaced the first one's plan: a rollback of each
    // restores what was there.
    const replaced = [toPro?.previous.plan, toBusiness?.previous.plan].sort();
    const final = (await keys.findById(record.keyId))?.plan;
    expect(replaced).toEqual(['free', final === 'pro' ? 'business' : 'pro'].sort());
  });

  it.each([
    [{}, undefined],
    [{ revokedAt: '2030-01-01T00:00:00.000Z' }, 'revoked'],
    [{ expiresAt: '2030-01-01T00:00:00.000Z' }, 'expired'],
    [{ expiresAt: '2030-01-01T00:00:00.001Z' }, undefined],
    [{ graceUntil: '2030-01-01T00:00:00.000Z' }, 'rolled'],
    [{ graceUntil: '2030-01-01T00:00:00.001Z' }, undefined],
  ])('keyRefusal of %j at 2030-01-01T00:00:00Z is %s', (fields, refusal) => {
    const record = { keyHash: 'h', keyId: 'k', plan: 'free', usageIdentifier: 'u', createdAt: '' };
    expect(
      keyRefusal({ ...record, ...fields } as never, Date.parse('2030-01-01T00:00:00.000Z')),
    ).toBe(refusal);
  });

  it('is what createContainer builds from KEYS_TABLE_NAME', async () => {
    const { record, token } = await keys.createKey({ plan: 'pro' });
    expect(await createContainer().keys.findByToken(token)).toEqual(record);
  });
});
