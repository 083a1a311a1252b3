/** The middleware chain every operation's Lambda runs (see `functions/operations/`). */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Container } from '../container.ts';
import { invocationBudgetMs, withDeadline } from '../deadline.ts';
import { logger } from '../logger.ts';
import type { AuthorizedKey } from './authorized-key.ts';
import {
  countServerErrors,
  errorHandler,
  type HttpMiddleware,
  responseHeaders,
  strictQuery,
} from './middleware.ts';
import { type CountedContext, rateLimit, readBesideCount } from './rate-limit.ts';

/** What an operation gets beside its event and context. */
export interface Invocation<Input = undefined, Read = undefined> {
  /** Aborts before the function's timeout: pass it to every store call. */
  readonly signal: AbortSignal;
  /** The request's API key, from the authorizer's context. */
  readonly key: AuthorizedKey;
  /** The request's validated input ({@link HttpHandlerOptions.input}). */
  readonly input: Input;
  /** What the declared read gave ({@link HttpHandlerOptions.read}), the request admitted. */
  readonly read: Read;
}

/** An operation's own code: a function of its validated input and its read's result. */
export type OperationFunction<Input = undefined, Read = undefined> = (
  event: APIGatewayProxyEvent,
  context: Context,
  invocation: Invocation<Input, Read>,
) => Promise<APIGatewayProxyResult>;

/** What an operation's read gets: the invocation's deadline and the request's key. */
export interface ReadCall {
  readonly signal: AbortSignal;
  readonly key: AuthorizedKey;
}

/** The Lambda handler of an operation, for API Gateway REST proxy events. */
export type HttpHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** Options of {@link httpHandler}. */
export interface HttpHandlerOptions<Input = undefined, Read = undefined> {
  /** The request body's middlewares, e.g. `jsonBody()`. @default - none: the body as passed */
  readonly body?: readonly HttpMiddleware[];
  /** The query parameters the operation takes; any other, or one twice: 400. @default - none */
  readonly queryParameters?: readonly string[];
  /** Headers added to every response of the operation, errors included. @default - none */
  readonly headers?: Readonly<Record<string, string>>;
  /** The operation's container: settings, per-key rate limiter and its clock (`now`, epoch ms). */
  readonly container: Pick<Container, 'settings' | 'rateLimiter' | 'now'>;
  /** The request's input, validated after the query and body checks; throws ApiError (4xx). @default - none */
  readonly input?: (event: APIGatewayProxyEvent) => Input;
  /**
   * The first store call, sent beside the limiter's (`readBesideCount`): it must not write what a
   * refused request may not leave behind (its outcome is then dropped). @default - none
   */
  readonly read?: (input: Input, call: ReadCall) => Promise<Read>;
  /** The operation's own code, run once the request is admitted. */
  readonly operation: OperationFunction<Input, Read>;
}

/**
 * Wraps an operation in the service's middy chain (the order and why: docs/architecture.md): the
 * operation runs once the request is admitted, on its validated input and its read's result.
 * @returns The Lambda handler for API Gateway REST proxy events.
 */
export function httpHandler<Input = undefined, Read = undefined>(
  options: HttpHandlerOptions<Input, Read>,
): HttpHandler {
  const { container, input: inputOf, read, operation } = options;
  const limiter = rateLimit({
    limiter: container.rateLimiter,
    deadlineMs: container.settings.RATE_LIMIT_DEADLINE_MS,
    now: container.now,
  });
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, CountedContext>(
    function admitted(event: APIGatewayProxyEvent, context: CountedContext) {
      const count = context.rateLimitCount;
      if (!count) throw new Error('The rate limiter has not counted this request');
      const { key } = count;
      return withDeadline(invocationBudgetMs(context), async (signal) => {
        const input = inputOf ? inputOf(event) : (undefined as Input);
        const result = await readBesideCount(count, read && (() => read(input, { signal, key })));
        return operation(event, context, { signal, key, input, read: result as Read });
      });
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
