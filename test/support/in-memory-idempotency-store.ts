/** Idempotency records in memory, with the semantics of the DynamoDB ones; for tests. */
import { IdempotencyKeyUsedError } from '../../shared/idempotency/errors.ts';
import {
  type FoundRecord,
  type IdempotentRequest,
  recordExpiry,
  type StoredResponse,
} from '../../shared/idempotency/record.ts';

/** Records in a Map; {@link put} is what an in-memory effect calls with its own write. */
export class InMemoryIdempotencyStore {
  private readonly records = new Map<string, FoundRecord & { expiresAt: number }>();

  /**
   * Puts `request`'s record with `response` unless the key has a live record. Synchronous, so an
   * effect that calls it before it stores anything lands with it or not at all.
   *
   * @param nowMs Now, epoch milliseconds: the record expires 24 h later.
   * @throws IdempotencyKeyUsedError with the live record; nothing is changed.
   */
  put(request: IdempotentRequest, response: StoredResponse, nowMs: number): void {
    const record = this.records.get(request.id);
    if (record && record.expiresAt >= Math.floor(nowMs / 1000)) {
      const { fingerprint, response: kept } = structuredClone(record);
      throw new IdempotencyKeyUsedError({ fingerprint, response: kept });
    }
    this.records.set(request.id, {
      fingerprint: request.fingerprint,
      response: structuredClone(response),
      expiresAt: recordExpiry(nowMs),
    });
  }
}
