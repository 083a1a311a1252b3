/**
 * Proxy events as API Gateway passes them after the authorizer accepted a key: with the
 * authorizer's context, which the rate limiter of every operation reads.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { expect } from 'vitest';
import { createProxyEvent, type ProxyRequest } from '../../infra/local/events.ts';
import { PLANS } from '../../shared/plans.ts';

/** The key of this test file: its own id, so its rate-limit windows start empty; Business limits. */
export const TEST_KEY = {
  keyId: `key_${randomBytes(8).toString('hex')}`,
  plan: 'business',
  perMinute: PLANS.business.perMinute,
  perDay: PLANS.business.perDay,
} as const;

/**
 * {@link createProxyEvent} with the authorizer context of `key` (default {@link TEST_KEY}).
 */
export function authorizedEvent(
  input: ProxyRequest,
  key: { keyId: string; plan: string; perMinute: number; perDay: number } = TEST_KEY,
): APIGatewayProxyEvent {
  return createProxyEvent({ ...input, authorizer: { ...key, principalId: key.keyId } });
}

/** The rate-limit fields every authenticated response carries (docs/rate-limits.md, "Headers"). */
const RATE_LIMIT_FIELDS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

/**
 * Checks that a proxy result carries every rate-limit field, and returns it without them, so that
 * a test can compare the rest of it exactly.
 */
export function withoutRateLimitHeaders(result: APIGatewayProxyResult): APIGatewayProxyResult {
  const headers = { ...result.headers };
  for (const name of RATE_LIMIT_FIELDS) {
    expect(headers, `${name} on a ${result.statusCode} answer`).toHaveProperty(name);
    delete headers[name];
  }
  return { ...result, headers };
}

/** Calls an operation's handler and returns its result {@link withoutRateLimitHeaders}. */
export async function invoke(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<APIGatewayProxyResult> {
  return withoutRateLimitHeaders(await handler(event, context));
}
