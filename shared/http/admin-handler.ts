/** The admin functions' middy chain: the public one's, the IAM-principal check admitting. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { handlerChain } from './chain.ts';
import type { HttpHandler } from './handler.ts';
import { auditContextOf } from './iam-identity.ts';
import { type HttpMiddleware, type HttpMiddlewaresOptions, httpMiddlewares } from './middleware.ts';

/** An admin operation's own code: the event (body parsed when it takes one) in, an answer out. */
export type AdminOperationCode = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

export type AdminHandlerOptions = Pick<HttpMiddlewaresOptions, 'body' | 'queryParameters'>;

/** Answers 403 `forbidden` an event without an IAM principal, before anything reads its request. */
function iamPrincipal(): HttpMiddleware {
  return {
    before: function iamPrincipalBefore(request) {
      // API Gateway's AWS_IAM authorization sets it; without it no operation runs, reads included.
      auditContextOf(request.event);
    },
  };
}

/** Wraps an admin operation in its chain. */
export function adminHandler(
  fn: AdminOperationCode,
  options: AdminHandlerOptions = {},
): HttpHandler {
  return handlerChain(fn, httpMiddlewares({ ...options, admission: iamPrincipal() }));
}
