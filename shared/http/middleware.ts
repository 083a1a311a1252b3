/** The service's own middy middlewares, as middy's, and the order the HTTP functions run them in. */
import type { MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { logger } from '../logger.ts';
import { countOne, SERVER_ERROR_RESPONSES, versionDimensions } from '../metrics.ts';
import { apiErrorOf } from './error-mapping.ts';
import { ApiError } from './http-errors.ts';
import { jsonResponse } from './responses.ts';

/** A middy middleware of an API Gateway REST proxy function. */
export type HttpMiddleware<TContext extends Context = Context> = MiddlewareObj<
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  Error,
  TContext
>;

/** Options of {@link httpMiddlewares}. */
export interface HttpMiddlewaresOptions<TContext extends Context = Context> {
  /** What admits a request: the per-key rate limiter, or the admin API's IAM-principal check. */
  readonly admission: HttpMiddleware<TContext>;
  /**
   * Adds headers to every answer, errors included (getPet's `deprecated`, the portal's CORS).
   * @default - none
   */
  readonly headers?: HttpMiddleware;
  /** The query parameters the operation takes; any other, or one twice: 400. @default - none */
  readonly queryParameters?: readonly string[];
  /** The request body's middleware, e.g. `jsonBody()`. @default - none: the body as passed */
  readonly body?: HttpMiddleware;
}

/** An API Gateway function's middlewares, in their order (why: docs/architecture.md). */
export function httpMiddlewares<TContext extends Context>(
  options: HttpMiddlewaresOptions<TContext>,
): HttpMiddleware<TContext>[] {
  return [
    countServerErrors(),
    httpHeaderNormalizer(),
    ...(options.headers ? [options.headers] : []),
    options.admission,
    errorHandler(),
    strictQuery(options.queryParameters ?? []),
    ...(options.body ? [options.body] : []),
  ];
}

/** The Error answer of `error` (docs/api.md, "Error codes"); a bug: 500, no detail, logged. */
export function errorResponse(error: unknown): APIGatewayProxyResult {
  const answer = apiErrorOf(error);
  if (answer) return jsonResponse(answer.statusCode, answer.toBody(), answer.headers);
  logger.error('Unexpected error', { error: error ?? undefined });
  const internal = new ApiError('internal_error', 'An unexpected error occurred.');
  return jsonResponse(internal.statusCode, internal.toBody());
}

/** Turns every error into its Error answer ({@link errorResponse}). */
export function errorHandler(): HttpMiddleware {
  return {
    onError: function errorHandlerOnError(request) {
      request.response = errorResponse(request.error);
    },
  };
}

/**
 * Counts each 5xx answer as {@link SERVER_ERROR_RESPONSES} of the function version that gave it
 * (the canary's rollback metric).
 */
export function countServerErrors(): HttpMiddleware {
  const countServerErrorsAfter: NonNullable<HttpMiddleware['after']> = (request) => {
    if ((request.response?.statusCode ?? 0) >= 500) {
      const { functionName, functionVersion } = request.context;
      countOne(SERVER_ERROR_RESPONSES, versionDimensions(functionName, functionVersion));
    }
  };
  return { after: countServerErrorsAfter, onError: countServerErrorsAfter };
}

/**
 * Refuses with 400 `invalid_parameter` a query parameter not in `allowed`, or one given twice.
 */
export function strictQuery(allowed: readonly string[]): HttpMiddleware {
  return {
    before: function strictQueryBefore(request) {
      const { queryStringParameters, multiValueQueryStringParameters } = request.event;
      for (const name of Object.keys(queryStringParameters ?? {})) {
        if (!allowed.includes(name)) {
          throw new ApiError('invalid_parameter', `${name}: is not allowed`);
        }
        const count = multiValueQueryStringParameters?.[name]?.length ?? 1;
        if (count > 1) {
          throw new ApiError('invalid_parameter', `${name}: is given ${count} times; give it once`);
        }
      }
    },
  };
}
