/**
 * The idempotency record of a create, written with the pet, and the rules of what a keyed create
 * meets at its key (docs/idempotency.md). Pure: no I/O, no clock.
 */

/** How long a record is kept, in seconds: 24 hours (a retry after that creates anew). */
export const IDEMPOTENCY_RECORD_TTL_SECONDS = 86_400;

/** Seconds to wait before retrying while another write of the same key is in flight. */
export const IN_FLIGHT_RETRY_SECONDS = 1;

/** A request named by an Idempotency-Key. */
export interface IdempotentRequest {
  /** Record id, `<keyId>#<Idempotency-Key>`: keys are scoped to the API key that sent them. */
  readonly id: string;
  /** SHA-256 of the parsed body (`requestFingerprint`). */
  readonly fingerprint: string;
}

/** The one record type: a request's fingerprint and the create's result, live until `expiresAt`. */
export interface IdempotencyRecord<TResult> extends IdempotentRequest {
  /** What the create produced (the Pet): a replay answers from it. */
  readonly result: TResult;
  /** Epoch seconds at which the record expires ({@link recordExpiry}; the table's TTL). */
  readonly expiresAt: number;
}

/**
 * What a keyed create came to: `created` (the record written with the result), `replayed` (a live
 * record of the same body: its result), `reused` (a live record of another body) or `in flight`
 * (another write of the key is under way). Only `created` wrote anything.
 */
export type IdempotentOutcome<TResult> =
  | { readonly status: 'created' | 'replayed'; readonly result: TResult }
  | { readonly status: 'reused' }
  | { readonly status: 'in flight'; readonly retryAfterSeconds: number };

/** The outcome of a create that met another write of its key in flight. */
export const IN_FLIGHT: IdempotentOutcome<never> = {
  status: 'in flight',
  retryAfterSeconds: IN_FLIGHT_RETRY_SECONDS,
};

/** Epoch seconds at which a record written at `nowMs` (epoch ms) expires (its TTL attribute). */
export function recordExpiry(nowMs: number): number {
  return Math.floor(nowMs / 1000) + IDEMPOTENCY_RECORD_TTL_SECONDS;
}

/**
 * The least `expiresAt` (epoch s) of a record live at `nowMs` (epoch ms): it binds to its end. The
 * one statement of liveness; the DynamoDB condition takes it as `:liveFrom`.
 */
export function liveFrom(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

/** Whether `record` is live at `nowMs` (epoch ms), by {@link liveFrom}. */
export function isLive(record: Pick<IdempotencyRecord<unknown>, 'expiresAt'>, nowMs: number) {
  return record.expiresAt >= liveFrom(nowMs);
}

/** The outcome of `request` meeting the live `record` at its key: replayed if the same body. */
export function repeatOutcome<TResult>(
  request: IdempotentRequest,
  record: IdempotencyRecord<TResult>,
): IdempotentOutcome<TResult> {
  return record.fingerprint === request.fingerprint
    ? { status: 'replayed', result: record.result }
    : { status: 'reused' };
}
