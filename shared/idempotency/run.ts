/**
 * Idempotent execution of a create: the first request with a key runs; a repeat gets the stored
 * answer, or waits while the first runs; the same key with another body is refused.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { RESPONSE_MARGIN_MS, withDeadline } from '../deadline.ts';
import { logger } from '../logger.ts';
import { StoreUnavailableError } from '../store-errors.ts';
import {
  IdempotencyInProgressError,
  IdempotencyKeyReusedError,
  IdempotencyLockLostError,
} from './errors.ts';
import type { IdempotencyLock, IdempotencyStore, StoredResponse } from './idempotency-store.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './key.ts';

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

/** Performs the request, completing `lock`'s record in its effect's own write (`RecordCompletion`). */
export type IdempotentOperation = (lock: IdempotencyLock) => Promise<StoredResponse>;

/**
 * Runs `operation` at most once for `request.id`.
 *
 * @returns The operation's response, or the stored one with `Idempotent-Replayed: true`.
 * @throws IdempotencyInProgressError (until the running attempt's lock lapses),
 *   IdempotencyKeyReusedError for another body, StoreUnavailableError when the records cannot be
 *   read or written (nothing was run). Errors of the operation itself are passed on after its
 *   lock is released.
 */
export async function runIdempotent(
  store: IdempotencyStore,
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
      if (!(error instanceof StoreUnavailableError)) throw error;
      throw new StoreUnavailableError(
        'The idempotency records are unavailable, so the request was not run.',
        { cause: error },
      );
    });
  switch (begun.outcome) {
    case 'replay':
      return proxyResult(begun.response, { [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
    case 'mismatch':
      throw new IdempotencyKeyReusedError(
        `${IDEMPOTENCY_KEY_HEADER}: was used with a different request body; send a new key for a new request.`,
      );
    case 'in_progress':
      throw inProgress(Math.max(1, Math.ceil((begun.lockedUntil - nowMs) / 1000)));
  }
  try {
    return proxyResult(await operation(begun.lock));
  } catch (error) {
    if (error instanceof IdempotencyLockLostError) throw inProgress(1);
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

function inProgress(retryAfterSeconds: number): IdempotencyInProgressError {
  return new IdempotencyInProgressError(
    `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry after ${retryAfterSeconds} seconds.`,
    retryAfterSeconds,
  );
}

/** Releases the lock of a failed attempt within its own short deadline; else it lapses. */
async function release(store: IdempotencyStore, lock: IdempotencyLock): Promise<void> {
  try {
    await withDeadline(RESPONSE_MARGIN_MS / 2, (signal) => store.release(lock, signal));
  } catch (error) {
    logger.warn('Could not release an idempotency lock; it lapses with the invocation', {
      error,
    });
  }
}
