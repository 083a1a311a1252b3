/**
 * Idempotent execution of a create (draft-ietf-httpapi-idempotency-key-header-07, with Stripe's
 * replay rules): the first request with a key runs; a repeat with the same body gets the stored
 * answer; the same key with another body is refused; a repeat while the first still runs is told
 * to come back.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { RESPONSE_MARGIN_MS, withDeadline } from '../deadline.ts';
import { ApiError } from '../http/errors.ts';
import { isDependencyFailure, serviceUnavailable } from '../http/unavailable.ts';
import { logger } from '../logger.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './key.ts';
import type {
  DynamoDBIdempotencyStore,
  IdempotencyLock,
  StoredResponse,
  TransactWriteItem,
} from './store.ts';

/** One request with an Idempotency-Key. */
export interface IdempotentRequest {
  /** Record id, `<keyId>#<Idempotency-Key>`: keys are scoped to the API key that sent them. */
  readonly id: string;
  /** SHA-256 of the parsed body (`requestFingerprint`). */
  readonly fingerprint: string;
  /** Epoch milliseconds at which the invocation ends: the lock lapses then. */
  readonly lockedUntil: number;
  /** The invocation's deadline. */
  readonly signal: AbortSignal;
}

/**
 * Performs the request: writes `complete(response)` in the same transaction as its effect, and
 * returns that response.
 */
export type IdempotentOperation = (
  complete: (response: StoredResponse) => TransactWriteItem,
) => Promise<StoredResponse>;

/**
 * Runs `operation` at most once for `request.id`.
 *
 * @returns The operation's response, or the stored one with `Idempotent-Replayed: true`.
 * @throws ApiError 409 `idempotency_request_in_progress` (with `Retry-After` until the running
 *   attempt's lock lapses), 422 `idempotency_key_reused` for another body, 503
 *   `service_unavailable` when the records cannot be read or written (nothing was run). Errors of
 *   the operation itself are passed on after its lock is released.
 */
export async function runIdempotent(
  store: DynamoDBIdempotencyStore,
  request: IdempotentRequest,
  operation: IdempotentOperation,
): Promise<APIGatewayProxyResult> {
  const nowMs = Date.now();
  const begun = await store
    .begin(request.id, request.fingerprint, {
      nowMs,
      lockedUntil: request.lockedUntil,
      signal: request.signal,
    })
    .catch((error: unknown) => {
      if (!isDependencyFailure(error)) throw error;
      throw serviceUnavailable(
        'The idempotency records are unavailable, so the request was not run.',
        error,
      );
    });
  switch (begun.outcome) {
    case 'replay':
      return proxyResult(begun.response, { [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
    case 'mismatch':
      throw new ApiError(
        'idempotency_key_reused',
        `${IDEMPOTENCY_KEY_HEADER}: was used with a different request body; send a new key for a new request.`,
      );
    case 'in_progress':
      throw inProgress(Math.max(1, Math.ceil((begun.lockedUntil - nowMs) / 1000)));
  }
  try {
    return proxyResult(await operation((response) => store.completion(begun.lock, response)));
  } catch (error) {
    if (lostLock(error)) throw inProgress(1);
    await release(store, begun.lock);
    throw error;
  }
}

/** The proxy result of a stored response. */
export function proxyResult(
  response: StoredResponse,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode: response.statusCode,
    headers: { 'Content-Type': 'application/json', ...response.headers, ...headers },
    body: response.body,
  };
}

function inProgress(retryAfterSeconds: number): ApiError {
  return new ApiError(
    'idempotency_request_in_progress',
    `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry after ${retryAfterSeconds} seconds.`,
    { headers: { 'Retry-After': String(retryAfterSeconds) } },
  );
}

/** The transaction was cancelled because the record's lock is no longer this attempt's. */
function lostLock(error: unknown): boolean {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (
    (error as Error).name === 'TransactionCanceledException' &&
    reasons?.at(-1)?.Code === 'ConditionalCheckFailed'
  );
}

/**
 * Releases the lock of a failed attempt, within its own short deadline (the invocation's may have
 * run out). If that fails too, the lock lapses at the invocation's end.
 */
async function release(store: DynamoDBIdempotencyStore, lock: IdempotencyLock): Promise<void> {
  try {
    await withDeadline(RESPONSE_MARGIN_MS / 2, (signal) => store.release(lock, signal));
  } catch (error) {
    logger.warn('Could not release an idempotency lock; it lapses with the invocation', {
      error,
    });
  }
}
