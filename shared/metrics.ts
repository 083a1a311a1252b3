/**
 * The service's CloudWatch metrics (Powertools for AWS Lambda, embedded metric format): namespace
 * `Petstore`, dimensions `service` = `petstore` and `stage` = the deployment stage (from
 * `PETSTORE_STAGE`, `local` without it), so that each stage's alarms watch only its own metrics.
 * `POWERTOOLS_METRICS_DISABLED=true` turns them off (tests, the local stack).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { readSetting } from './settings.ts';

/** CloudWatch namespace of the service's metrics. */
export const METRICS_NAMESPACE = 'Petstore';

/** Value of the `service` dimension on every metric. */
export const SERVICE_NAME = 'petstore';

/** The rate limiter's metrics (counts of requests). */
export const RATE_LIMIT_METRICS = {
  /** Refused with 429 `rate_limited`. */
  refused: 'RateLimitRefused',
  /** Refused with 429 `api_key_temporarily_banned`. */
  banned: 'RateLimitBanned',
  /** Admitted uncounted because the counters table failed (fail open): alarmed on. */
  unavailable: 'RateLimiterUnavailable',
} as const;

/**
 * An operation's answers with a 5xx status (its own 500s and 503s), counted per function version
 * with {@link versionDimensions} on top of the stage's: what rolls a canary back.
 */
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

/**
 * Emits a count of 1 for `name` at once (one EMF log line), so that no middleware has to flush a
 * store of metrics at the end of each invocation.
 *
 * @param dimensions Dimensions besides `service` and `stage`, e.g. {@link versionDimensions}.
 */
export function countOne(name: string, dimensions: Readonly<Record<string, string>> = {}): void {
  metrics ??= new Metrics({
    namespace: METRICS_NAMESPACE,
    serviceName: SERVICE_NAME,
    defaultDimensions: { stage: readSetting('PETSTORE_STAGE') },
  });
  const single = metrics.singleMetric();
  // addDimension, not addDimensions: the latter would start a second dimension set.
  for (const [dimension, value] of Object.entries(dimensions)) {
    single.addDimension(dimension, value);
  }
  single.addMetric(name, MetricUnit.Count, 1);
}
