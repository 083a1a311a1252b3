/**
 * The service's structured logger (Powertools for AWS Lambda). JSON lines with the Lambda request
 * id; the level comes from `POWERTOOLS_LOG_LEVEL` (default INFO).
 */
import { Logger } from '@aws-lambda-powertools/logger';

/** One logger per container, shared by every function of the service. */
export const logger = new Logger({ serviceName: 'petstore' });
