/** A create's idempotency record and the rules of what a keyed create meets (docs/idempotency.md). */

/** How long a record is kept, in seconds (a retry after that creates anew). */
export const IDEMPOTENCY_RECORD_TTL_SECONDS = 86_400;

/** A request named by an Idempotency-Key. */
export interface IdempotentRequest {
  /** `<keyId>#<Idempotency-Key>`: a key is scoped to its API key. */
  readonly id: string;
  /** SHA-256 of the parsed body (`requestFingerprint`). */
  readonly fingerprint: string;
}

/** The one record type: a request's fingerprint and the create's result, live until `expiresAt`. */
export interface IdempotencyRecord<TResult> extends IdempotentRequest {
  /** The Pet a replay answers. */
  readonly result: TResult;
  /** TTL, epoch seconds ({@link recordExpiry}). */
  readonly expiresAt: number;
}

/**
 * What a keyed create came to: `created`, `replayed` (a live record of the same body), `reused`
 * (of another body) or `in flight` (another write of the key). Only `created` wrote anything.
 */
export type IdempotentOutcome<TResult> =
  | { readonly status: 'created' | 'replayed'; readonly result: TResult }
  | { readonly status: 'reused' }
  | { readonly status: 'in flight'; readonly retryAfterSeconds: number };

/** The outcome of a create that met another write of its key in flight: retry after a second. */
export const IN_FLIGHT: IdempotentOutcome<never> = { status: 'in flight', retryAfterSeconds: 1 };

/** The TTL, epoch seconds, of a record written at `nowMs` (epoch ms). */
export function recordExpiry(nowMs: number): number {
  return Math.floor(nowMs / 1000) + IDEMPOTENCY_RECORD_TTL_SECONDS;
}

/** The least `expiresAt` (epoch s) of a record live at `nowMs` (epoch ms): the one statement of liveness. */
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
