/** Deadlines of store calls, as AbortSignals: the invocation's, and shorter ones. */

/** Milliseconds kept back from an invocation's remaining time to answer 503 after a cut call. */
export const RESPONSE_MARGIN_MS = 1_000;

/**
 * Milliseconds an invocation's calls may take: its remaining time less {@link RESPONSE_MARGIN_MS}
 * (at least 0), at most `capMs`. @param capMs @default - no cap
 */
export function invocationBudgetMs(
  context: { getRemainingTimeInMillis(): number },
  capMs = Number.POSITIVE_INFINITY,
): number {
  return Math.min(Math.max(0, context.getRemainingTimeInMillis() - RESPONSE_MARGIN_MS), capMs);
}

/**
 * Runs `work` with a signal that aborts (`TimeoutError`) after `ms` milliseconds, unless it settled.
 * @returns What `work` returns. @throws Its error (an aborted SDK call: `AbortError`).
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
