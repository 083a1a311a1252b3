/** The idempotency record of a create, written with the pet (docs/idempotency.md). */

/** How long a record is kept, in seconds: 24 hours (a retry after that creates anew). */
export const IDEMPOTENCY_RECORD_TTL_SECONDS = 86_400;

/** The answer kept in a record, replayed to every repeat of the request. */
export interface StoredResponse {
  readonly statusCode: number;
  /** Headers to replay besides Content-Type, e.g. `Location`. */
  readonly headers: Readonly<Record<string, string>>;
  /** The JSON body as sent. */
  readonly body: string;
}

/** A request named by an Idempotency-Key. */
export interface IdempotentRequest {
  /** Record id, `<keyId>#<Idempotency-Key>`: keys are scoped to the API key that sent them. */
  readonly id: string;
  /** SHA-256 of the parsed body (`requestFingerprint`). */
  readonly fingerprint: string;
}

/** The record an effect writes with itself, atomically; refused as `PetStore.createPet` says. */
export interface RecordedRequest<TResult> extends IdempotentRequest {
  /** The answer to keep, from the effect's result. */
  readonly response: (result: TResult) => StoredResponse;
}

/** A live record found in place of the write: its request's fingerprint and kept answer. */
export interface FoundRecord {
  readonly fingerprint: string;
  readonly response: StoredResponse;
}

/** Epoch seconds at which a record written at `nowMs` expires (its TTL attribute). */
export function recordExpiry(nowMs: number): number {
  return Math.floor(nowMs / 1000) + IDEMPOTENCY_RECORD_TTL_SECONDS;
}
