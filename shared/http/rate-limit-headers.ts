/** The rate-limit headers of every authenticated response (docs/rate-limits.md). */
import type { RequestLimits } from '../plans.ts';
import type { RateLimitDecision, WindowUsage } from '../rate-limit/decision.ts';
import { secondsUntil, WINDOW_SECONDS, type WindowName, windowAt } from '../rate-limit/windows.ts';

/** Response header names, as sent. */
export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
  policy: 'RateLimit-Policy',
  state: 'RateLimit',
  retryAfter: 'Retry-After',
} as const;

/** `RateLimit-Policy` for a key's limits: one list member per window, quota `q`, window `w` (s). */
export function rateLimitPolicy(limits: RequestLimits): string {
  const policy = (name: WindowName, quota: number) =>
    `"${name}";q=${quota};w=${WINDOW_SECONDS[name]}`;
  return `${policy('minute', limits.perMinute)}, ${policy('day', limits.perDay)}`;
}

/** Every rate-limit header of a response; `Retry-After` only for a refusal. @param nowMs Epoch ms. */
export function rateLimitHeaders(
  decision: RateLimitDecision,
  nowMs: number,
): Record<string, string> {
  const { binding, minute, day } = decision;
  const state = (window: WindowUsage) =>
    `"${window.name}";r=${window.remaining};t=${secondsUntil(window.resetAt, nowMs, 0)}`;
  return {
    [RATE_LIMIT_HEADERS.limit]: String(binding.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(binding.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(binding.resetAt),
    [RATE_LIMIT_HEADERS.policy]: rateLimitPolicy({ perMinute: minute.limit, perDay: day.limit }),
    [RATE_LIMIT_HEADERS.state]: `${state(minute)}, ${state(day)}`,
    ...(decision.admitted
      ? {}
      : { [RATE_LIMIT_HEADERS.retryAfter]: String(secondsUntil(binding.resetAt, nowMs, 1)) }),
  };
}

/** The headers of a request admitted uncounted (fail open): none that would need a count. */
export function uncountedHeaders(limits: RequestLimits, nowMs: number): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(limits.perMinute),
    [RATE_LIMIT_HEADERS.reset]: String(windowAt('minute', nowMs).resetAt),
    [RATE_LIMIT_HEADERS.policy]: rateLimitPolicy(limits),
  };
}
