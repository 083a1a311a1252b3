/**
 * The leaked-key endpoint of a stage in one region (docs/operations.md, "Leaked keys"): its
 * function and its method on the region's public API, without the authorizer (GitHub's signature
 * is the authorization), with its alarms.
 */
import type { Stack } from 'aws-cdk-lib';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { LEAKED_KEY_EVENTS_UNPUBLISHED } from '../../shared/metrics.ts';
import { SECRET_SCANNING_ROUTE } from '../secret-scanning-route.ts';
import { alarmOnSum } from './alarms.ts';
import type { PetstoreApi } from './petstore-api.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

/** What {@link addSecretScanning} builds the endpoint from. */
export interface SecretScanningProps extends Omit<ServiceFunctionProps, 'definition'> {
  /** The region's public API, which serves the endpoint at `…/v1/secret-scanning/github`. */
  readonly api: PetstoreApi;
  /** Builds one of the service's own metrics with the stage's dimensions. */
  readonly serviceMetric: (metricName: string) => Metric;
  /**
   * The list of the keys that sign the reports (`SECRET_SCANNING_KEYS_URL`).
   * @default - GitHub's, the setting's default (shared/settings.ts)
   */
  readonly keysUrl?: string;
}

/**
 * The endpoint's {@link ServiceFunction} at the stack's scope (construct id
 * `SecretScanningFunction`: its row's), its method on `api`, an alarm on the function's errors and
 * one on `key.leaked` events not published.
 * @returns The function.
 */
export function addSecretScanning(stack: Stack, props: SecretScanningProps): ServiceFunction {
  const { api, serviceMetric, keysUrl, ...functionProps } = props;
  const scanning = new ServiceFunction(stack, SECRET_SCANNING_ROUTE.constructId, {
    ...functionProps,
    definition: SECRET_SCANNING_ROUTE,
    environment: { ...props.environment, ...(keysUrl && { SECRET_SCANNING_KEYS_URL: keysUrl }) },
  });
  api.addSignedMethod(SECRET_SCANNING_ROUTE, scanning.function);
  alarmOnSum(scanning, 'Errors', scanning.function.metricErrors(), 'secret scanning errors');
  alarmOnSum(
    scanning,
    'LeakedKeyEventsUnpublished',
    serviceMetric(LEAKED_KEY_EVENTS_UNPUBLISHED),
    'key.leaked events not published (their keys are revoked)',
  );
  return scanning;
}
