/** The middy chain of every public operation's Lambda (see `functions/handlers/`). */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Container } from '../container.ts';
import { invocationBudgetMs, withDeadline } from '../deadline.ts';
import type { AuthorizedKey } from './authorized-key.ts';
import { handlerChain, type LambdaHandler } from './chain.ts';
import { type HttpMiddlewaresOptions, httpMiddlewares } from './middleware.ts';
import { type CountedContext, rateLimit, readBesideCount } from './rate-limit.ts';

/** What an operation gets beside its event and context. */
export interface Invocation<Input = undefined, Read = undefined> {
  /** Aborts before the function's timeout. */
  readonly signal: AbortSignal;
  readonly key: AuthorizedKey;
  readonly input: Input;
  readonly read: Read;
}

/** An operation's own code: a function of its validated input and its read's result. */
export type OperationCode<Input = undefined, Read = undefined> = (
  event: APIGatewayProxyEvent,
  context: Context,
  invocation: Invocation<Input, Read>,
) => Promise<APIGatewayProxyResult>;

/** The Lambda handler of an operation, for API Gateway REST proxy events. */
export type HttpHandler = LambdaHandler<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** Options of {@link httpHandler}. */
export interface HttpHandlerOptions<Input = undefined, Read = undefined>
  extends Omit<HttpMiddlewaresOptions, 'admission'> {
  /** `now`: the limiter's clock, epoch ms. */
  readonly container: Pick<Container, 'settings' | 'rateLimiter' | 'now'>;
  /** The input, validated after the query and body checks; throws ApiError. @default - none */
  readonly input?: (event: APIGatewayProxyEvent) => Input;
  /**
   * The first store call, beside the limiter's, with the invocation's deadline and the request's
   * key: it writes nothing a refusal must not leave. @default - none
   */
  readonly read?: (input: Input, call: Pick<Invocation, 'signal' | 'key'>) => Promise<Read>;
  readonly operation: OperationCode<Input, Read>;
}

/** Wraps an operation in its chain, the rate limiter admitting. */
export function httpHandler<Input = undefined, Read = undefined>(
  options: HttpHandlerOptions<Input, Read>,
): HttpHandler {
  const { container, input: inputOf, read, operation } = options;
  return handlerChain(
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
    httpMiddlewares({ ...options, admission: rateLimit(container) }),
  ) as HttpHandler;
}
