/** The service's structured logger (Powertools): JSON lines with the Lambda request id, at `POWERTOOLS_LOG_LEVEL` (default INFO). */
import { Logger } from '@aws-lambda-powertools/logger';

/** The service's name: `service` of every log line and metric. */
export const SERVICE_NAME = 'petstore';

/** One logger per container, shared by every function of the service. */
export const logger = new Logger({ serviceName: SERVICE_NAME });
