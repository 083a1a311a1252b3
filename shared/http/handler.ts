/** The middleware chain every operation's Lambda runs (see `functions/operations/`). */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Container } from '../container.ts';
import { invocationBudgetMs, withDeadline } from '../deadline.ts';
import { logger } from '../logger.ts';
import {
  countServerErrors,
  errorHandler,
  type HttpMiddleware,
  responseHeaders,
  strictQuery,
} from './middleware.ts';
import { type Admission, rateLimit } from './rate-limit.ts';

/** What an operation gets beside its event and context. */
export interface Invocation extends Admission {
  /** Aborts before the function's timeout: pass it to every store call. */
  readonly signal: AbortSignal;
}

/**
 * An operation's own code. It awaits `admit` first, with its first store call if it has one
 * (`admit(() => store.read(…))`: one round trip for both); nothing before it may write.
 */
export type OperationFunction = (
  event: APIGatewayProxyEvent,
  context: Context,
  invocation: Invocation,
) => Promise<APIGatewayProxyResult>;

/** The Lambda handler of an operation, for API Gateway REST proxy events. */
export type HttpHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** Options of {@link httpHandler}. */
export interface HttpHandlerOptions {
  /** The request body's middlewares, e.g. `jsonBody()`. @default - none: the body as passed */
  readonly body?: readonly HttpMiddleware[];
  /** The query parameters the operation takes; any other, or one twice: 400. @default - none */
  readonly queryParameters?: readonly string[];
  /** Headers added to every response of the operation, errors included. @default - none */
  readonly headers?: Readonly<Record<string, string>>;
  /** The operation's container: settings, per-key rate limiter and its clock (`now`, epoch ms). */
  readonly container: Pick<Container, 'settings' | 'rateLimiter' | 'now'>;
}

/**
 * Wraps an operation in the service's middy chain (the order and why: docs/architecture.md).
 * @returns The Lambda handler for API Gateway REST proxy events.
 */
export function httpHandler(fn: OperationFunction, options: HttpHandlerOptions): HttpHandler {
  const { container } = options;
  const limiter = rateLimit({
    limiter: container.rateLimiter,
    deadlineMs: container.settings.RATE_LIMIT_DEADLINE_MS,
    now: container.now,
  });
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(
    function withInvocationDeadline(event: APIGatewayProxyEvent, context: Context) {
      const admission = limiter.admissionOf(event);
      return withDeadline(invocationBudgetMs(context), (signal) =>
        fn(event, context, { signal, ...admission }),
      );
    },
    { timeoutEarlyInMillis: 0 },
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(countServerErrors())
    .use(httpHeaderNormalizer());
  if (options.headers) chain.use(responseHeaders(options.headers));
  chain
    .use(limiter)
    .use(errorHandler())
    .use(strictQuery(options.queryParameters ?? []));
  chain.use([...(options.body ?? [])]);
  return chain;
}
