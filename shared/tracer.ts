/**
 * The service's X-Ray tracer (Powertools for AWS Lambda). It records only inside Lambda with active
 * tracing: outside Lambda (tests, the local stack) or with `POWERTOOLS_TRACE_ENABLED=false` every
 * call on it does nothing and `captureAWSv3Client` returns the client unchanged.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { SERVICE_NAME } from './metrics.ts';

/** One tracer per container, shared by every function of the service. */
export const tracer = new Tracer({ serviceName: SERVICE_NAME });
