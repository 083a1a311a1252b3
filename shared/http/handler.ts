/**
 * The middleware chain every operation's Lambda runs (see `functions/`).
 */

import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type Container, createContainer } from '../container.ts';
import { invocationBudgetMs, withDeadline } from '../deadline.ts';
import { logger } from '../logger.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import {
  countServerErrors,
  errorHandler,
  type HttpMiddleware,
  responseHeaders,
  strictQuery,
} from './middleware.ts';
import { rateLimit } from './rate-limit.ts';

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
   * The request body's middlewares, e.g. `jsonBody()` of `json-body.ts` (Content-Type, size and
   * UTF-8 guards, then JSON parsing). Passed in, so that only the operations that read a body
   * bundle a body parser.
   * @default - none: the body is left as API Gateway passed it
   */
  readonly body?: readonly HttpMiddleware[];
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
   * The settings (`RATE_LIMIT_DEADLINE_MS`) and the rate limiter of the operation's container.
   * @default createContainer()
   */
  readonly container?: Pick<Container, 'settings' | 'rateLimiter'>;
  /**
   * The per-key rate limiter.
   * @default - the container's
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
 * 2. the count of 5xx answers per function version (`countServerErrors`), which sees every answer;
 * 3. header normalizer (lower-case names);
 * 4. fixed response headers, if any;
 * 5. per-key rate limiter: before any body parsing or store access, so that a refused request
 *    does no work; its headers go on every response (registered before the error handler, whose
 *    Error response its `onError` then sees);
 * 6. error handler: every error becomes the Error body, unexpected ones a bare 500;
 * 7. strict query: unknown or repeated query parameters → 400;
 * 8. the body's middlewares, if any (`options.body`).
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
    .use(countServerErrors())
    .use(httpHeaderNormalizer());
  if (options.headers) chain.use(responseHeaders(options.headers));
  const container = options.container ?? createContainer();
  chain.use(
    rateLimit({
      limiter: options.rateLimiter ?? container.rateLimiter,
      deadlineMs: container.settings.RATE_LIMIT_DEADLINE_MS,
      now: options.now,
    }),
  );
  chain.use(errorHandler()).use(strictQuery(options.queryParameters ?? []));
  return chain.use([...(options.body ?? [])]);
}
