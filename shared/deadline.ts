/**
 * Deadlines for DynamoDB calls: the invocation's, and shorter ones of the calls that must not use
 * all of it, as AbortSignals.
 */
import type { Context } from 'aws-lambda';

/**
 * Milliseconds kept back from an invocation's remaining time: room to answer 503 (and release an
 * idempotency lock) after a store call was cut short, before Lambda's own timeout ends the
 * invocation without an answer.
 */
export const RESPONSE_MARGIN_MS = 1_000;

/**
 * Milliseconds an invocation's calls may take: its remaining time less {@link RESPONSE_MARGIN_MS}
 * (0 when less is left), or `capMs` if that is shorter.
 *
 * @param context The Lambda context; only `getRemainingTimeInMillis` is read.
 * @param capMs Longest the calls may take, in milliseconds. @default - no cap
 */
export function invocationBudgetMs(
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  capMs = Number.POSITIVE_INFINITY,
): number {
  return Math.min(Math.max(0, context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS), capMs);
}

/**
 * Runs `work` with a signal that aborts after `ms` milliseconds (a `TimeoutError`); pass it as
 * `abortSignal` to every DynamoDB call of the work, so that the SDK's retries happen only within
 * that time. The timer stops as soon as the work settles, so nothing the work held stays alive
 * after it (`AbortSignal.timeout` would keep its timer, and what it references, until it fires).
 *
 * @returns What `work` returns; its error, if it throws (an aborted SDK call throws `AbortError`).
 */
export async function withDeadline<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The deadline passed', 'TimeoutError')),
    ms,
  );
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
