/**
 * `PetstoreError`: every failure of a call, whether the API answered an Error body
 * `{code, message, status}` (docs/openapi.yaml, "Errors") or no usable answer came back.
 */
import type { ApiErrorCode } from './api.ts';
import type { RateLimitState } from './headers.ts';

/**
 * The codes of the API's Error body, and the client's own for calls that got no usable answer:
 * `network_error` (the connection failed), `timeout` (no answer within `timeoutMs`),
 * `unexpected_response` (an answer that is not the document's, e.g. a proxy's HTML page).
 */
export type PetstoreErrorCode = ApiErrorCode | 'network_error' | 'timeout' | 'unexpected_response';

/** A call failed: the API refused it, or (after any retries) gave no usable answer. */
export class PetstoreError extends Error {
  override readonly name = 'PetstoreError';
  /** The Error body's `code`, or the client's own (see {@link PetstoreErrorCode}). */
  readonly code: PetstoreErrorCode;
  /** The HTTP status; undefined when no answer came (`network_error`, `timeout`). */
  readonly status: number | undefined;
  /** The answer's request id (`x-amzn-RequestId`), to quote to the operators. */
  readonly requestId: string | undefined;
  /** Seconds the API asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;
  /** The answer's rate-limit state; undefined when no answer came. */
  readonly rateLimit: RateLimitState | undefined;
  /** The answer's raw headers; undefined when no answer came. */
  readonly headers: Headers | undefined;
  /** Attempts made, the failed last one included (1 when the call was not retried). */
  readonly attempts: number;

  /** @param details Every field, and the `cause` (the network error) when nothing answered. */
  constructor(
    details: Pick<
      PetstoreError,
      | 'code'
      | 'message'
      | 'status'
      | 'requestId'
      | 'retryAfter'
      | 'rateLimit'
      | 'headers'
      | 'attempts'
    > & { readonly cause?: unknown },
  ) {
    super(details.message, { cause: details.cause });
    this.code = details.code;
    this.status = details.status;
    this.requestId = details.requestId;
    this.retryAfter = details.retryAfter;
    this.rateLimit = details.rateLimit;
    this.headers = details.headers;
    this.attempts = details.attempts;
  }
}
