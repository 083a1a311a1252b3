/** The middleware chain every operation's Lambda runs (see `functions/operations/`). */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Container } from '../container.ts';
import { invocationBudgetMs, withDeadline } from '../deadline.ts';
import { createDynamoDBBase } from '../dynamodb-base.ts';
import { logger } from '../logger.ts';
import { DynamoDBRateLimiter } from '../rate-limit/dynamodb-rate-limiter.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import {
  countServerErrors,
  errorHandler,
  type HttpMiddleware,
  responseHeaders,
  strictQuery,
} from './middleware.ts';
import { rateLimit } from './rate-limit.ts';

/** An operation's own code; `signal` aborts before the function's timeout: pass it to every store call. */
export type OperationFunction = (
  event: APIGatewayProxyEvent,
  context: Context,
  deadline: { readonly signal: AbortSignal },
) => Promise<APIGatewayProxyResult>;

/** Options of {@link httpHandler}. */
export interface HttpHandlerOptions {
  /**
   * The request body's middlewares, e.g. `jsonBody()` of `json-body.ts`.
   * @default - none: the body is left as API Gateway passed it
   */
  readonly body?: readonly HttpMiddleware[];
  /**
   * The query parameters the operation takes; any other, or one given twice: 400.
   * @default - none: every query parameter is refused
   */
  readonly queryParameters?: readonly string[];
  /** Headers added to every response of the operation, errors included. @default - none */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * The settings (`RATE_LIMIT_DEADLINE_MS`) and the rate limiter of the operation's container.
   * @default - the settings of the environment and a DynamoDBRateLimiter on them
   */
  readonly container?: Pick<Container, 'settings' | 'rateLimiter' | 'now'>;
  /** The per-key rate limiter. @default - the container's */
  readonly rateLimiter?: RateLimiter;
  /** Clock of the rate limiter, epoch milliseconds. @default Date.now */
  readonly now?: () => number;
}

/**
 * Wraps an operation in the service's middy chain: logger context, 5xx count, header normalizer,
 * fixed headers, rate limiter, error handler, strict query, then the body's middlewares (the
 * order and why: docs/architecture.md).
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
  const container = options.container ?? environmentContainer(options.rateLimiter);
  chain.use(
    rateLimit({
      limiter: options.rateLimiter ?? container.rateLimiter,
      deadlineMs: container.settings.RATE_LIMIT_DEADLINE_MS,
      now: options.now ?? container.now,
    }),
  );
  chain.use(errorHandler()).use(strictQuery(options.queryParameters ?? []));
  return chain.use([...(options.body ?? [])]);
}

/** The settings of the environment and `rateLimiter`, or a DynamoDBRateLimiter on them. */
function environmentContainer(
  rateLimiter?: RateLimiter,
): Pick<Container, 'settings' | 'rateLimiter' | 'now'> {
  const base = createDynamoDBBase();
  return { settings: base.settings, rateLimiter: rateLimiter ?? DynamoDBRateLimiter.from(base) };
}
