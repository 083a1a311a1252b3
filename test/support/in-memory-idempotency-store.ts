/** An IdempotencyStore in memory, with the semantics of the DynamoDB one; for tests. */
import { randomUUID } from 'node:crypto';
import { IdempotencyLockLostError } from '../../shared/idempotency/errors.ts';
import {
  type BeginOptions,
  IDEMPOTENCY_RECORD_TTL_SECONDS,
  type IdempotencyBegin,
  type IdempotencyLock,
  type IdempotencyStore,
  type StoredResponse,
} from '../../shared/idempotency/idempotency-store.ts';

interface IdempotencyRecord {
  status: 'INPROGRESS' | 'COMPLETED';
  fingerprint: string;
  lockToken: string;
  /** Epoch ms; absent once completed. */
  lockedUntil?: number;
  response?: StoredResponse;
  /** Epoch seconds. */
  expiresAt: number;
}

/** Idempotency records in a Map; {@link complete} is what an in-memory effect calls atomically. */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();

  async begin(id: string, fingerprint: string, options: BeginOptions): Promise<IdempotencyBegin> {
    const nowSeconds = Math.floor(options.nowMs / 1000);
    const record = this.records.get(id);
    const lapsed =
      record?.status === 'INPROGRESS' &&
      (record.lockedUntil ?? 0) < options.nowMs &&
      record.fingerprint === fingerprint;
    if (!record || record.expiresAt < nowSeconds || lapsed) {
      const token = randomUUID();
      this.records.set(id, {
        status: 'INPROGRESS',
        fingerprint,
        lockToken: token,
        lockedUntil: options.lockedUntil,
        expiresAt: nowSeconds + IDEMPOTENCY_RECORD_TTL_SECONDS,
      });
      return { outcome: 'run', lock: { id, token } };
    }
    if (record.fingerprint !== fingerprint) return { outcome: 'mismatch' };
    if (record.status === 'COMPLETED' && record.response) {
      return { outcome: 'replay', response: structuredClone(record.response) };
    }
    return { outcome: 'in_progress', lockedUntil: record.lockedUntil ?? 0 };
  }

  /**
   * Completes the record of `lock` with `response`. Synchronous, so an effect that calls it
   * before it stores anything lands with it or not at all.
   *
   * @throws IdempotencyLockLostError when the lock is no longer held; nothing is changed.
   */
  complete(lock: IdempotencyLock, response: StoredResponse): void {
    const record = this.records.get(lock.id);
    if (!this.holds(record, lock)) throw new IdempotencyLockLostError();
    this.records.set(lock.id, {
      ...record,
      status: 'COMPLETED',
      response: structuredClone(response),
      lockedUntil: undefined,
    });
  }

  async release(lock: IdempotencyLock): Promise<void> {
    if (this.holds(this.records.get(lock.id), lock)) this.records.delete(lock.id);
  }

  private holds(
    record: IdempotencyRecord | undefined,
    lock: IdempotencyLock,
  ): record is IdempotencyRecord {
    return record?.lockToken === lock.token && record.status === 'INPROGRESS';
  }
}
