/**
 * Rolling keys through the key service on DynamoDB, and changes racing each other: at most two
 * tokens per key, every change reaching every token of a key (through its head item, read
 * strongly consistently), and a change cancelled or retried when another lands between its read
 * and its write.
 */

import { describe, expect, it } from 'vitest';
import { KeyChangedError, KeyNotFoundError } from '../../shared/keys/key-errors.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';
import { hashToken } from '../../shared/keys/token.ts';
import { everyKey } from '../support/every-key.ts';
import {
  currentOf,
  enterpriseKeyExpiring,
  interleaved,
  issueKey,
  recordingService,
  rowsOf,
  service,
  serviceOn,
  setNow,
  store,
  storedItem,
} from '../support/keys-table.ts';
import { TEST_CONTEXT } from '../support/test-keys.ts';

const recording = recordingService();

/** Rolls the key through `keys`, the old token working `graceSeconds` more. */
const roll = (keyId: string, graceSeconds: number, keys: KeyService = service) =>
  keys.rollKey(keyId, graceSeconds, TEST_CONTEXT);

describe('the key service rolling keys on DynamoDB', () => {
  it('rolls a key: a new token of the same key, the old one kept for the grace', async () => {
    const { record, token } = await enterpriseKeyExpiring('2040-01-01T00:00:00.000Z');
    setNow('2030-01-01T00:00:00.000Z');

    const rolled = await roll(record.keyId, 3600, serviceOn(store, 'staging'));

    expect(rolled?.token).toMatch(/^pet_stg_/);
    expect(rolled?.record).toEqual({ ...record, keyHash: hashToken(rolled?.token ?? '') });
    expect(rolled?.graceUntil).toBe('2030-01-01T01:00:00.000Z');
    expect(await store.findByToken(rolled?.token ?? '')).toEqual(rolled?.record);
    expect(await store.findByToken(token)).toEqual({
      ...record,
      graceUntil: '2030-01-01T01:00:00.000Z',
    });
    expect(await currentOf(record.keyId)).toEqual(rolled?.record);
    const listed = (await everyKey(store)).filter((key) => key.keyId === record.keyId);
    expect(listed).toEqual([{ ...rolled?.record, oldTokenUntil: '2030-01-01T01:00:00.000Z' }]);
  });

  it('ends the older grace when a key is rolled again: at most two tokens live', async () => {
    const { record, token: first } = await issueKey({ plan: 'free' });
    const second = await roll(record.keyId, 3600);
    const third = await roll(record.keyId, 3600);

    expect(await store.findByToken(first)).toBeUndefined();
    expect(await store.findByToken(second?.token ?? '')).toMatchObject({
      graceUntil: expect.any(String),
    });
    expect(await store.findByToken(third?.token ?? '')).toEqual(third?.record);
  });

  it('ends the old token at once for a grace of 0', async () => {
    const { record, token } = await issueKey({ plan: 'free' });
    const rolled = await roll(record.keyId, 0);

    expect(rolled?.graceUntil).toBeUndefined();
    expect(await store.findByToken(token)).toBeUndefined();
    expect(await currentOf(record.keyId)).toEqual(rolled?.record);
  });

  it('revokes, moves and expires every token of a rolled key', async () => {
    const { record, token } = await issueKey({ plan: 'free' });
    const rolled = await roll(record.keyId, 3600);

    await service.setPlan(record.keyId, 'pro', undefined, TEST_CONTEXT);
    await service.setExpiry(record.keyId, '2039-01-01T00:00:00.000Z', TEST_CONTEXT);
    await service.revokeKey(record.keyId, TEST_CONTEXT);

    for (const each of [token, rolled?.token ?? '']) {
      expect(await store.findByToken(each)).toMatchObject({
        plan: 'pro',
        expiresAt: '2039-01-01T00:00:00.000Z',
        revokedAt: expect.any(String),
      });
    }
    await expect(roll(record.keyId, 60)).rejects.toThrow(/revoked/);
  });

  it('refuses to roll or expire an unknown key', async () => {
    await expect(roll('key_dddddddddddddddd', 60)).rejects.toThrow(KeyNotFoundError);
    await expect(
      service.setExpiry('key_dddddddddddddddd', undefined, TEST_CONTEXT),
    ).rejects.toThrow(KeyNotFoundError);
  });

  it.each([
    ['revoke', (keys: KeyService, keyId: string) => keys.revokeKey(keyId, TEST_CONTEXT)],
    [
      'set-scope',
      (keys: KeyService, keyId: string) => keys.setScopes(keyId, ['pets:read'], TEST_CONTEXT),
    ],
  ])(
    'reaches the newest token after two quick rolls with %s, reading only the base table strongly',
    async (_, change) => {
      const { record } = await issueKey({ plan: 'free' });
      const { keys, calls } = recording;
      calls.length = 0;

      const second = await roll(record.keyId, 3600, keys);
      const third = await roll(record.keyId, 3600, keys);
      await change(keys, record.keyId);

      // No index and no eventually consistent read: nothing a lag could hide is ever read.
      const reads = calls.map(({ input }) => input).filter((input) => !('TransactItems' in input));
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
    },
  );

  it('keeps a head item per key that names exactly its live rows', async () => {
    const { record } = await issueKey({ plan: 'free' });
    expect(await storedItem(record.keyId)).toEqual({
      keyHash: record.keyId,
      currentHash: record.keyHash,
    });

    const rolled = await roll(record.keyId, 60);
    expect(await storedItem(record.keyId)).toEqual({
      keyHash: record.keyId,
      currentHash: rolled?.record.keyHash,
      rolledOutHash: record.keyHash,
    });

    const ended = await roll(record.keyId, 0);
    expect(await storedItem(record.keyId)).toEqual({
      keyHash: record.keyId,
      currentHash: ended?.record.keyHash,
    });
    expect((await rowsOf(record.keyId)).map((row) => row.keyHash)).toEqual([ended?.record.keyHash]);
    expect((await everyKey(store)).filter((key) => key.keyId === record.keyId)).toEqual([
      ended?.record,
    ]);
  });

  it.each([
    ['rolled', (keyId: string) => roll(keyId, 60)],
    ['moved', (keyId: string) => service.setPlan(keyId, 'pro', undefined, TEST_CONTEXT)],
    ['revoked', (keyId: string) => service.revokeKey(keyId, TEST_CONTEXT)],
  ])('cancels a roll when the key was %s between its read and its write', async (_, change) => {
    const { record } = await issueKey({ plan: 'free' });
    let afterChange: unknown[] = [];
    const racer = interleaved(async () => {
      await change(record.keyId);
      afterChange = await rowsOf(record.keyId);
    });

    await expect(roll(record.keyId, 60, racer)).rejects.toThrow(KeyChangedError);

    // Only the interleaved change happened: the roll left no row and no grace behind.
    expect(await rowsOf(record.keyId)).toEqual(afterChange);
  });

  it("moves every token of a key rolled between the move's read and its write", async () => {
    const { record, token } = await issueKey({ plan: 'free' });
    let rolled: Awaited<ReturnType<typeof roll>> | undefined;
    const racer = interleaved(async () => {
      rolled = await roll(record.keyId, 60);
    });

    const changed = await racer.setPlan(record.keyId, 'business', undefined, TEST_CONTEXT);

    expect(changed.previous.plan).toBe('free');
    for (const each of [token, rolled?.token ?? '']) {
      expect((await store.findByToken(each))?.plan).toBe('business');
    }
  });

  it('refuses a move when another moved the key between its read and its write', async () => {
    const { record } = await issueKey({ plan: 'free' });
    const racer = interleaved(() => service.setPlan(record.keyId, 'pro', undefined, TEST_CONTEXT));

    // The move stands on the plan it read (API Gateway moved the key from it): not retried.
    await expect(racer.setPlan(record.keyId, 'business', undefined, TEST_CONTEXT)).rejects.toThrow(
      KeyChangedError,
    );

    expect((await currentOf(record.keyId))?.plan).toBe('pro');
  });

  it('reports as previous what each of two concurrent expiries really replaced', async () => {
    const { record } = await issueKey({ plan: 'free' });
    const [soon, later] = ['2050-01-01T00:00:00.000Z', '2060-01-01T00:00:00.000Z'];

    const changes = await Promise.all([
      service.setExpiry(record.keyId, soon, TEST_CONTEXT),
      service.setExpiry(record.keyId, later, TEST_CONTEXT),
    ]);

    // One replaced no expiry; the other, retried, replaced the first one's: an undo of each
    // restores what was there.
    const final = (await currentOf(record.keyId))?.expiresAt;
    const replaced = changes.map((change) => change.previous.expiresAt ?? 'none');
    expect(replaced.sort()).toEqual(['none', final === soon ? later : soon].sort());
  });
});
