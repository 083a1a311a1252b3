/** Idempotency records in memory, with the semantics of the DynamoDB ones; for tests. */
import {
  type IdempotencyRecord,
  type IdempotentOutcome,
  type IdempotentRequest,
  isLive,
  recordExpiry,
  repeatOutcome,
} from '../../shared/idempotency/record.ts';
import type { Pet } from '../../shared/pets/schemas.ts';

/** Records in a Map; {@link put} is what an in-memory create calls with its own write. */
export class InMemoryIdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord<Pet>>();

  /**
   * Puts `request`'s record of `pet` unless the key has a live record (`isLive`). Synchronous, so
   * a create that calls it before it stores anything lands with it or not at all.
   *
   * @param nowMs Now, epoch milliseconds: the record expires 24 h later.
   * @returns `undefined` once written; else the outcome of the live record (nothing changed).
   */
  put(request: IdempotentRequest, pet: Pet, nowMs: number): IdempotentOutcome<Pet> | undefined {
    const kept = this.records.get(request.id);
    if (kept && isLive(kept, nowMs)) return repeatOutcome(request, structuredClone(kept));
    this.records.set(request.id, {
      ...request,
      result: structuredClone(pet),
      expiresAt: recordExpiry(nowMs),
    });
    return undefined;
  }
}
