/**
 * The middleware chain every operation's Lambda runs (see `functions/`).
 */

import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { invocationBudgetMs, withDeadline } from '../deadline.ts';
import { logger } from '../logger.ts';
import { type RateLimiter, rateLimit, rateLimiterFromEnv } from '../rate-limit/middleware.ts';
import { errorHandler, jsonRequestBody, responseHeaders, strictQuery } from './middleware.ts';

/**
 * jsonRequestBody has already checked the media type; middy's own check is stricter (case-sensitive,
 * no space before parameters) and its 415 would reach the client as 400 invalid_json.
 * `disableContentTypeCheck` is a documented option that middy's type declarations lack.
 */
const SKIP_MEDIA_TYPE_CHECK = { disableContentTypeCheck: true } as Parameters<
  typeof httpJsonBodyParser
>[0];

/**
 * An operation's own code: receives the normalised event and the invocation's deadline, returns
 * the proxy result. `signal` aborts shortly before the function's timeout (see `deadline.ts`);
 * pass it to every store call.
 */
export type OperationFunction = (
  event: APIGatewayProxyEvent,
  context: Context,
  deadline: { readonly signal: AbortSignal },
) => Promise<APIGatewayProxyResult>;

/** Options of {@link httpHandler}. */
export interface HttpHandlerOptions {
  /**
   * Parse the body as JSON, after checking Content-Type (415) and size (413).
   * @default false - the body is left as API Gateway passed it
   */
  readonly jsonBody?: boolean;
  /**
   * The query parameters the operation takes; any other, or one given twice, is refused with 400
   * `invalid_parameter`.
   * @default - none: every query parameter is refused
   */
  readonly queryParameters?: readonly string[];
  /**
   * Headers added to every response of the operation, errors included.
   * @default - none
   */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The per-key rate limiter.
   * @default - the DynamoDB limiter on the counters table (`rateLimiterFromEnv`)
   */
  readonly rateLimiter?: RateLimiter;
  /**
   * Clock of the rate limiter, epoch milliseconds; injected by tests.
   * @default Date.now
   */
  readonly now?: () => number;
}

/**
 * Wraps an operation in the service's middy chain:
 *
 * 1. Powertools logger context (request id on every log line);
 * 2. header normalizer (lower-case names);
 * 3. fixed response headers, if any;
 * 4. per-key rate limiter: before any body parsing or store access, so that a refused request
 *    does no work; its headers go on every response (registered before the error handler, whose
 *    Error response its `onError` then sees);
 * 5. error handler: every error becomes the Error body, unexpected ones a bare 500;
 * 6. strict query: unknown or repeated query parameters → 400;
 * 7. for JSON bodies: Content-Type, charset, size and UTF-8 guards, then middy's JSON body parser.
 *
 * The operation gets a signal that aborts before the function's timeout, so a store that does
 * not answer ends in 503 `service_unavailable` rather than a Lambda timeout. middy's own early
 * timeout is off: it would answer while the operation's write is still in flight.
 *
 * @returns The Lambda handler for API Gateway REST proxy events.
 */
export function httpHandler(fn: OperationFunction, options: HttpHandlerOptions = {}) {
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(
    function withInvocationDeadline(event: APIGatewayProxyEvent, context: Context) {
      return withDeadline(invocationBudgetMs(context), (signal) => fn(event, context, { signal }));
    },
    { timeoutEarlyInMillis: 0 },
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpHeaderNormalizer());
  if (options.headers) chain.use(responseHeaders(options.headers));
  chain.use(rateLimit({ limiter: options.rateLimiter ?? rateLimiterFromEnv(), now: options.now }));
  chain.use(errorHandler()).use(strictQuery(options.queryParameters ?? []));
  if (options.jsonBody) chain.use(jsonRequestBody()).use(httpJsonBodyParser(SKIP_MEDIA_TYPE_CHECK));
  return chain;
}
