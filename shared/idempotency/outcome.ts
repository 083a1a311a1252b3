/**
 * The idempotency outcome rules, apart from storage: when a record still binds its key, what a
 * recorded write that met something at its key throws, and how a repeat is answered. Pure: no
 * I/O, no clock. The DynamoDB pet store's transaction, the in-memory twin and `run.ts` call them;
 * DynamoDB evaluates the first as the record put's condition (docs/idempotency.md).
 */
import { IdempotencyInProgressError, IdempotencyKeyUsedError } from './errors.ts';
import type { FoundRecord, IdempotentRequest } from './record.ts';

/** Seconds to wait before retrying while another write of the same key is in flight. */
export const IN_FLIGHT_RETRY_SECONDS = 1;

/**
 * The least `expiresAt` (epoch seconds) of a record that is live at `nowMs` (epoch milliseconds):
 * a record binds its key through the whole second in which it expires.
 */
export function liveFrom(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

/** A record as a store keeps it: the request's fingerprint, its answer and its expiry. */
export interface KeptRecord extends FoundRecord {
  /** Epoch seconds at which the record expires (`recordExpiry`). */
  readonly expiresAt: number;
}

/**
 * What a recorded write met at its key: nothing in its way, a record (live or past its expiry),
 * or another write of the key still in flight (a concurrent duplicate, or this write's own retry).
 */
export type MetAtKey =
  | { readonly kind: 'free' }
  | { readonly kind: 'record'; readonly record: KeptRecord }
  | { readonly kind: 'in flight' };

/**
 * Refuses a recorded write by what it met at its key at `nowMs` (epoch milliseconds); returns when
 * the write may land (nothing, or a record past its expiry).
 *
 * @param options The cause of the refusal, e.g. the store's cancelled write.
 * @throws IdempotencyKeyUsedError with the live record; IdempotencyInProgressError (retry after
 *   {@link IN_FLIGHT_RETRY_SECONDS}) while another write of the key is in flight.
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

/**
 * How a repeat of `request` is answered, given the live record its key holds: the record's answer
 * again (`replay`) when it was the same body, else refused (`mismatch`, HTTP 422).
 */
export function repeatAnswer(
  request: IdempotentRequest,
  found: FoundRecord,
): 'replay' | 'mismatch' {
  return found.fingerprint === request.fingerprint ? 'replay' : 'mismatch';
}
