/** The service's CloudWatch metrics (Powertools, EMF), dimensions `service` and `stage`. */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { readFunctionSettings } from './function-settings.ts';
import { SERVICE_NAME } from './logger.ts';

export const METRICS_NAMESPACE = 'Petstore';

/** The rate limiter's counts: refused (429 `rate_limited`), banned, admitted uncounted (alarmed). */
export const RATE_LIMIT_METRICS = {
  refused: 'RateLimitRefused',
  banned: 'RateLimitBanned',
  unavailable: 'RateLimiterUnavailable',
} as const;

/** `key.leaked` events not published after their keys were revoked (alarmed). */
export const LEAKED_KEY_EVENTS_UNPUBLISHED = 'LeakedKeyEventsUnpublished';

/** An operation's 5xx answers per function version: rolls a canary back. */
export const SERVER_ERROR_RESPONSES = 'ServerErrorResponses';

/** The dimensions that tell one function version's {@link SERVER_ERROR_RESPONSES} apart. */
export function versionDimensions(
  functionName: string,
  version: string,
): Record<'functionName' | 'functionVersion', string> {
  return { functionName, functionVersion: version };
}

/** The dimensions of every metric of the service in `stage`. */
export function metricDimensions(stage: string): Record<'service' | 'stage', string> {
  return { service: SERVICE_NAME, stage };
}

/** Built at the first count, not at import: most invocations count nothing (cold start). */
let metrics: Metrics | undefined;

/** Emits a count of 1 for `name` at once (one EMF line). @param dimensions Beside `service`, `stage`. */
export function countOne(name: string, dimensions: Readonly<Record<string, string>> = {}): void {
  metrics ??= new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { stage: readFunctionSettings().PETSTORE_STAGE },
  });
  const single = metrics.singleMetric();
  // addDimension, not addDimensions: the latter would start a second dimension set.
  for (const [dimension, value] of Object.entries(dimensions)) {
    single.addDimension(dimension, value);
  }
  single.addMetric(name, MetricUnit.Count, 1);
}
