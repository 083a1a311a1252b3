/**
 * The rateLimit middleware when the counters table fails (DynamoDB Local, a table that does not
 * exist): the request is admitted uncounted. The rest runs on the in-memory limiter
 * (test/unit/rate-limit-middleware.test.ts).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { logger } from '../../shared/logger.ts';
import {
  countingOperation,
  getEvent,
  invocationContext,
  key,
  MINUTE_RESET,
} from '../support/rate-limit-middleware.ts';

const client = createDocumentClient();
afterAll(() => client.destroy());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('rateLimit middleware', () => {
  it('fails open with a warning, a metric and the count-free fields when the counters table fails', async () => {
    const warned = vi.spyOn(logger, 'warn');
    const counted = vi.spyOn(Metrics.prototype, 'addMetric');
    const { handler, calls } = countingOperation(new DynamoDBRateLimiter(client, 'no-such-table'));
    const k = key(60, 1000);
    const response = await handler(getEvent(k), invocationContext());
    expect(response.statusCode).toBe(200);
    expect(calls.count).toBe(1);
    expect(response.headers).toEqual({
      'Content-Type': 'application/json',
      'X-RateLimit-Limit': '60',
      'X-RateLimit-Reset': MINUTE_RESET,
      'RateLimit-Policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
    });
    expect(counted.mock.calls).toEqual([['RateLimiterUnavailable', MetricUnit.Count, 1]]);
    expect(warned).toHaveBeenCalledWith(
      'Rate limiter unavailable; request admitted uncounted',
      expect.objectContaining({ keyId: k.keyId }),
    );
  });
});
