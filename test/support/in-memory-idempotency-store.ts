/** Idempotency records in memory, with the semantics of the DynamoDB ones; for tests. */
import { type KeptRecord, refuseUnlessFree } from '../../shared/idempotency/outcome.ts';
import {
  type IdempotentRequest,
  recordExpiry,
  type StoredResponse,
} from '../../shared/idempotency/record.ts';

/** Records in a Map; {@link put} is what an in-memory effect calls with its own write. */
export class InMemoryIdempotencyStore {
  private readonly records = new Map<string, KeptRecord>();

  /**
   * Puts `request`'s record with `response` unless the key has a live record (`refuseUnlessFree`).
   * Synchronous, so an effect that calls it before it stores anything lands with it or not at all.
   *
   * @param nowMs Now, epoch milliseconds: the record expires 24 h later.
   * @throws IdempotencyKeyUsedError with the live record; nothing is changed.
   */
  put(request: IdempotentRequest, response: StoredResponse, nowMs: number): void {
    const kept = this.records.get(request.id);
    refuseUnlessFree(
      kept ? { kind: 'record', record: structuredClone(kept) } : { kind: 'free' },
      nowMs,
    );
    this.records.set(request.id, {
      fingerprint: request.fingerprint,
      response: structuredClone(response),
      expiresAt: recordExpiry(nowMs),
    });
  }
}
