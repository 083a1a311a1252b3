/**
 * What every IdempotencyStore does, as one suite that each adapter's test file runs: who runs a
 * request, who is told to wait or replay, and what a release leaves behind.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type {
  IdempotencyLock,
  IdempotencyStore,
} from '../../shared/idempotency/idempotency-store.ts';

/** Runs the IdempotencyStore contract on the store `make` builds (once, before the suite). */
export function idempotencyStoreContract(adapter: string, make: () => IdempotencyStore): void {
  describe(`IdempotencyStore contract: ${adapter}`, () => {
    let records: IdempotencyStore;
    beforeAll(() => {
      records = make();
    });
    const nowMs = Date.now();
    const begin = (id: string, fingerprint = 'f', at = nowMs, lockedUntil = at + 60_000) =>
      records.begin(id, fingerprint, { nowMs: at, lockedUntil });
    async function lockOf(id: string, at = nowMs, lockedUntil = at + 60_000) {
      const begun = await begin(id, 'f', at, lockedUntil);
      if (begun.outcome !== 'run') throw new Error(`expected to run, got ${begun.outcome}`);
      return begun.lock;
    }

    it('lets the first attempt run and tells a repeat that it runs until its lock lapses', async () => {
      const id = randomUUID();
      const lock: IdempotencyLock = await lockOf(id);

      expect(lock.id).toBe(id);
      expect(await begin(id)).toEqual({ outcome: 'in_progress', lockedUntil: nowMs + 60_000 });
    });

    it('lets a repeat take over a lock that lapsed, with a new token', async () => {
      const id = randomUUID();
      const lapsed = await lockOf(id, nowMs, nowMs - 1);

      const taken = await lockOf(id);

      expect(taken.token).not.toBe(lapsed.token);
    });

    it('tells a request with another body that the key was used for another', async () => {
      const id = randomUUID();
      await lockOf(id, nowMs, nowMs - 1);

      expect(await begin(id, 'another body')).toEqual({ outcome: 'mismatch' });
    });

    it('starts anew once the record expired (24 h after the first request)', async () => {
      const id = randomUUID();
      await lockOf(id);
      const dayLater = nowMs + 86_401_000;

      expect((await begin(id, 'another body', dayLater)).outcome).toBe('run');
    });

    it('deletes a failed attempt on release, so that a retry runs at once', async () => {
      const id = randomUUID();
      await records.release(await lockOf(id));

      expect((await begin(id)).outcome).toBe('run');
    });

    it('keeps on release a record that another attempt holds', async () => {
      const id = randomUUID();
      const lapsed = await lockOf(id, nowMs, nowMs - 1);
      await lockOf(id);

      await records.release(lapsed);

      expect((await begin(id)).outcome).toBe('in_progress');
    });
  });
}
