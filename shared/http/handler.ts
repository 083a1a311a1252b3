/** The middleware chain every operation's Lambda runs (see `functions/operations/`). */
import { AsyncLocalStorage } from 'node:async_hooks';
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
import { type HttpRequest, rateLimit } from './rate-limit.ts';

/** The invocation's deadline, as store calls take it. */
export interface Deadline {
  /** Aborts before the function's timeout: pass it to every store call. */
  readonly signal: AbortSignal;
}

/** What an operation gets beside its event and context. */
export interface Invocation<T> extends Deadline {
  /** The work of `HttpHandlerOptions.beside`, started beside the rate limiter's call. */
  readonly started: Promise<T>;
}

/** An operation's own code, run once the rate limiter has let the request through. */
export type OperationFunction<T = undefined> = (
  event: APIGatewayProxyEvent,
  context: Context,
  invocation: Invocation<T>,
) => Promise<APIGatewayProxyResult>;

/** The Lambda handler of an operation, for API Gateway REST proxy events. */
export type HttpHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** Options of {@link httpHandler}. */
export interface HttpHandlerOptions<T = undefined> {
  /** The request body's middlewares, e.g. `jsonBody()`. @default - none: the body as passed */
  readonly body?: readonly HttpMiddleware[];
  /** The query parameters the operation takes; any other, or one twice: 400. @default - none */
  readonly queryParameters?: readonly string[];
  /** Headers added to every response of the operation, errors included. @default - none */
  readonly headers?: Readonly<Record<string, string>>;
  /** The operation's container: settings, per-key rate limiter and its clock (`now`, epoch ms). */
  readonly container: Pick<Container, 'settings' | 'rateLimiter' | 'now'>;
  /**
   * The operation's first store call, sent beside the rate limiter's so both cost one round trip
   * (docs/architecture.md); the operation awaits it as `started`. It must not write what a
   * refused request may not leave behind.
   * @default - none: `started` resolves to `undefined`
   */
  readonly beside?: (event: APIGatewayProxyEvent, deadline: Deadline) => Promise<T>;
}

/**
 * Wraps an operation in the service's middy chain (the order and why: docs/architecture.md).
 * @returns The Lambda handler for API Gateway REST proxy events.
 */
export function httpHandler<T = undefined>(
  fn: OperationFunction<T>,
  options: HttpHandlerOptions<T>,
): HttpHandler {
  const { beside, container } = options;
  // Per invocation, from the rate limiter's `before` to the operation: the work it started.
  const invocations = new AsyncLocalStorage<{ started?: Promise<T> }>();
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(
    function withInvocationDeadline(event: APIGatewayProxyEvent, context: Context) {
      const started = invocations.getStore()?.started ?? Promise.resolve(undefined as T);
      return withDeadline(invocationBudgetMs(context), (signal) =>
        fn(event, context, { signal, started }),
      );
    },
    { timeoutEarlyInMillis: 0 },
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(countServerErrors())
    .use(httpHeaderNormalizer());
  if (options.headers) chain.use(responseHeaders(options.headers));
  chain.use(
    rateLimit({
      limiter: container.rateLimiter,
      deadlineMs: container.settings.RATE_LIMIT_DEADLINE_MS,
      now: container.now,
      start: beside && startWith(beside, invocations),
    }),
  );
  chain.use(errorHandler()).use(strictQuery(options.queryParameters ?? []));
  chain.use([...(options.body ?? [])]);
  if (!beside) return chain;
  return function httpHandlerWithBeside(event, context) {
    return invocations.run({}, () => chain(event, context));
  };
}

/** Starts `beside` under the invocation's deadline and keeps its promise for the operation. */
function startWith<T>(
  beside: NonNullable<HttpHandlerOptions<T>['beside']>,
  invocations: AsyncLocalStorage<{ started?: Promise<T> }>,
): (request: HttpRequest) => Promise<void> {
  return function startBeside(request) {
    const started = withDeadline(invocationBudgetMs(request.context), (signal) =>
      beside(request.event, { signal }),
    );
    const invocation = invocations.getStore();
    if (invocation) invocation.started = started;
    // Handled here: a refused request discards the outcome; the operation sees it otherwise.
    return started.then(
      () => undefined,
      () => undefined,
    );
  };
}
