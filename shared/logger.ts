/** The service's structured logger (Powertools): JSON lines, level `POWERTOOLS_LOG_LEVEL` (INFO). */
import { Logger } from '@aws-lambda-powertools/logger';

/** The service's name: `service` of every log line and metric. */
export const SERVICE_NAME = 'petstore';

/** One logger per container, shared by every function of the service. */
export const logger = new Logger({ serviceName: SERVICE_NAME });
