/** The one factory of the functions' middy chains, each given only the middlewares it uses. */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from '../logger.ts';

/** A Lambda handler as a chain takes and gives it. */
export type LambdaHandler<TEvent, TResult, TContext extends Context = Context> = (
  event: TEvent,
  context: TContext,
) => Promise<TResult>;

/** `fn` behind Powertools' logger context, then `middlewares` in order (docs/architecture.md). */
export function handlerChain<TEvent, TResult, TContext extends Context = Context>(
  fn: LambdaHandler<TEvent, TResult, TContext>,
  middlewares: readonly MiddlewareObj<TEvent, TResult, Error, TContext>[] = [],
): LambdaHandler<TEvent, TResult, TContext> {
  return middy<TEvent, TResult, Error, TContext>(fn, { timeoutEarlyInMillis: 0 })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use([...middlewares]);
}
