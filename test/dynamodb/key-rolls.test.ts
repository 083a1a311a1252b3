/**
 * Rolling keys on DynamoDB, and changes racing each other: at most two tokens per key, every
 * change reaching every token of a key (through its head item, read strongly consistently), and a
 * change cancelled or retried when another lands between its read and its write.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../shared/dynamodb/key-store.ts';
import { KeyChangedError } from '../../shared/keys/errors.ts';
import { hashToken } from '../../shared/keys/token.ts';
import {
  client,
  enterpriseKeyExpiring,
  interleaved,
  keys,
  rowsOf,
  setNow,
  storedItem,
  tableName,
} from '../support/keys-table.ts';

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => client.destroy());

describe('DynamoDBKeyStore rolling keys', () => {
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
});
