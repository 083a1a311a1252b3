/**
 * The deadline of one Lambda invocation, as an AbortSignal for its DynamoDB calls.
 */
import type { Context } from 'aws-lambda';

/**
 * Milliseconds kept back from an invocation's remaining time: room to answer 503 (and release an
 * idempotency lock) after a store call was cut short, before Lambda's own timeout ends the
 * invocation without an answer.
 */
export const RESPONSE_MARGIN_MS = 1_000;

/**
 * A signal that aborts {@link RESPONSE_MARGIN_MS} before the invocation times out (at once when
 * less time than that is left), or after `capMs` if that comes first. Pass it as `abortSignal` to
 * every DynamoDB call of the invocation: the SDK's retries then happen only within the time the
 * function has.
 *
 * @param context The Lambda context; only `getRemainingTimeInMillis` is read.
 * @param capMs Longest the calls may take, in milliseconds. @default - no cap
 */
export function invocationDeadline(
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  capMs = Number.POSITIVE_INFINITY,
): AbortSignal {
  const remaining = Math.max(0, context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS);
  return AbortSignal.timeout(Math.min(remaining, capMs));
}
