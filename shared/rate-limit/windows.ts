/** The two fixed rate-limit windows of every key: the UTC minute and the UTC day. */

/** Name of a window; also its policy name in the `RateLimit` and `RateLimit-Policy` fields. */
export type WindowName = 'minute' | 'day';

export const WINDOW_SECONDS: Readonly<Record<WindowName, number>> = { minute: 60, day: 86_400 };

/** One window: where it starts and ends. */
export interface WindowBounds {
  readonly name: WindowName;
  /** Epoch seconds. */
  readonly start: number;
  /** First second after it, epoch seconds. */
  readonly resetAt: number;
}

/** The window of kind `name` that contains `nowMs` (epoch milliseconds). */
export function windowAt(name: WindowName, nowMs: number): WindowBounds {
  const length = WINDOW_SECONDS[name];
  const start = Math.floor(nowMs / 1000 / length) * length;
  return { name, start, resetAt: start + length };
}

/** Whole seconds from `nowMs` until `epochSeconds`, rounded up. @param floor 1 for `Retry-After`, else 0. */
export function secondsUntil(epochSeconds: number, nowMs: number, floor: 0 | 1): number {
  return Math.max(floor, Math.ceil(epochSeconds - nowMs / 1000));
}
