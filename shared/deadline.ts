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
 * less time than that is left). Pass it as `abortSignal` to every DynamoDB call of the invocation:
 * the SDK's retries then happen only within the time the function has.
 *
 * @param context The Lambda context; only `getRemainingTimeInMillis` is read.
 */
export function invocationDeadline(
  context: Pick<Context, 'getRemainingTimeInMillis'>,
): AbortSignal {
  return AbortSignal.timeout(Math.max(0, context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS));
}
