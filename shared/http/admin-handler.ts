/**
 * The admin API functions' middy chain: the public one without the per-key rate limiter (callers
 * are IAM principals of the stage's account), the key operations' errors as Error answers.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import {
  ApiGatewayStepError,
  KeyChangedError,
  KeyNotFoundError,
  KeyRevokedError,
} from '../keys/errors.ts';
import { logger } from '../logger.ts';
import { storeErrorOf } from '../store-errors.ts';
import { ApiError } from './errors.ts';
import type { HttpHandler } from './handler.ts';
import { auditContextOf } from './iam-identity.ts';
import { jsonBody } from './json-body.ts';
import { countServerErrors, errorHandler, strictQuery } from './middleware.ts';
import { serviceUnavailable } from './unavailable.ts';

/** An admin operation's own code: the event (body parsed when it takes one) in, an answer out. */
export type AdminOperationFunction = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** Options of {@link adminHandler}. */
export interface AdminHandlerOptions {
  /** The operation reads a JSON body (`jsonBody()`). @default false */
  readonly body?: boolean;
  /** The query parameters it takes; any other, or one twice: 400. @default - none */
  readonly queryParameters?: readonly string[];
}

/**
 * The Error answer of a key operation's failure: 404 `key_not_found`, 409 `key_revoked` or
 * `key_changed`, 400 `invalid_body` for a rule a body breaks (RangeError: limits that do not fit
 * the plan), 503 with Retry-After for API Gateway or a store failing; anything else is left as it
 * is (the error handler answers 500 for a bug).
 */
export function adminErrorOf(error: unknown): unknown {
  if (error instanceof KeyNotFoundError) return new ApiError('key_not_found', error.message);
  if (error instanceof KeyRevokedError) return new ApiError('key_revoked', error.message);
  if (error instanceof KeyChangedError) return new ApiError('key_changed', error.message);
  if (error instanceof RangeError) return new ApiError('invalid_body', error.message);
  if (error instanceof ApiGatewayStepError) return serviceUnavailable(error.message, error);
  return storeErrorOf(error);
}

/**
 * Wraps an admin operation in the chain: Powertools' logger context, 5xx counting, header
 * normalizer, error handler, strict query, and with `body` the JSON body middleware; an event
 * without an IAM principal is answered 403 `forbidden` before the operation runs.
 * @returns The Lambda handler for API Gateway REST proxy events (IAM-authorized).
 */
export function adminHandler(
  fn: AdminOperationFunction,
  options: AdminHandlerOptions = {},
): HttpHandler {
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(
    async function adminOperation(event: APIGatewayProxyEvent, context: Context) {
      try {
        // API Gateway's AWS_IAM authorization sets it; without it no operation runs, reads included.
        auditContextOf(event);
        return await fn(event, context);
      } catch (error) {
        throw adminErrorOf(error);
      }
    },
    { timeoutEarlyInMillis: 0 },
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(countServerErrors())
    .use(httpHeaderNormalizer())
    .use(errorHandler())
    .use(strictQuery(options.queryParameters ?? []));
  if (options.body) chain.use(jsonBody());
  return chain;
}
