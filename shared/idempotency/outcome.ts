/** The idempotency outcome rules (docs/idempotency.md). Pure: no I/O, no clock. */
import { IdempotencyInProgressError, IdempotencyKeyUsedError } from './errors.ts';
import type { FoundRecord, IdempotentRequest } from './record.ts';

/** Seconds to wait before retrying while another write of the same key is in flight. */
export const IN_FLIGHT_RETRY_SECONDS = 1;

/** The least `expiresAt` (epoch s) of a record live at `nowMs` (epoch ms): it binds to its end. */
export function liveFrom(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

/** A record as a store keeps it: the request's fingerprint, its answer and its expiry. */
export interface KeptRecord extends FoundRecord {
  /** Epoch seconds at which the record expires (`recordExpiry`). */
  readonly expiresAt: number;
}

/** What a recorded write met at its key: nothing, a record, or another write in flight. */
export type MetAtKey =
  | { readonly kind: 'free' }
  | { readonly kind: 'record'; readonly record: KeptRecord }
  | { readonly kind: 'in flight' };

/**
 * Refuses a recorded write by what it met at its key at `nowMs` (epoch ms), or lets it land.
 * @param options The cause of the refusal, e.g. the store's cancelled write.
 * @throws IdempotencyKeyUsedError with the live record; IdempotencyInProgressError while another
 *   write of the key is in flight.
 */
export function refuseUnlessFree(met: MetAtKey, nowMs: number, options?: ErrorOptions): void {
  if (met.kind === 'in flight') {
    throw new IdempotencyInProgressError(IN_FLIGHT_RETRY_SECONDS, options);
  }
  if (met.kind === 'record' && met.record.expiresAt >= liveFrom(nowMs)) {
    const { fingerprint, response } = met.record;
    throw new IdempotencyKeyUsedError({ fingerprint, response }, options);
  }
}

/** How a repeat is answered: `replay` for the same body, else `mismatch` (HTTP 422). */
export function repeatAnswer(
  request: IdempotentRequest,
  found: FoundRecord,
): 'replay' | 'mismatch' {
  return found.fingerprint === request.fingerprint ? 'replay' : 'mismatch';
}
