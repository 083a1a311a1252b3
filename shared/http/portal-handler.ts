/**
 * The portal API functions' middy chain: the public one's with the ID token's check admitting
 * (the function checks again what API Gateway's Cognito authorizer checked) and CORS for the
 * portal's origin on every answer.
 */
import cors from '@middy/http-cors';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { AuditContext } from '../audit/entry.ts';
import { InvalidIdTokenError } from '../portal/portal-errors.ts';
import { accountActor, type IdTokenVerifier, type PortalAccount } from '../portal/portal-ports.ts';
import { authorizationValues, bearerToken } from './bearer.ts';
import { handlerChain } from './chain.ts';
import type { HttpHandler } from './handler.ts';
import { type HttpMiddleware, type HttpMiddlewaresOptions, httpMiddlewares } from './middleware.ts';

/** A portal operation's own code: the event, the signed-in account and the Lambda context in. */
export type PortalOperationCode = (
  event: APIGatewayProxyEvent,
  account: PortalAccount,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** What the portal's functions share: how tokens are checked, and the portal's origin. */
export interface PortalDoor {
  readonly verifier: IdTokenVerifier;
  /** The one origin answered for CORS, e.g. `https://portal.example.com`. */
  readonly origin: string;
}

/** Options of {@link portalHandler}. */
export type PortalHandlerOptions = Pick<HttpMiddlewaresOptions, 'body' | 'queryParameters'>;

/** The invocation's context with the account its ID token names. */
interface AccountContext extends Context {
  portalAccount?: PortalAccount;
}

/** Verifies the bearer ID token (one `Authorization` header) before anything reads the request. */
function idToken(verifier: IdTokenVerifier): HttpMiddleware<AccountContext> {
  return {
    before: async function idTokenBefore(request) {
      const values = authorizationValues(request.event);
      const token = values.length === 1 ? bearerToken(values[0]) : undefined;
      if (token === undefined) throw new InvalidIdTokenError();
      request.context.portalAccount = await verifier.verify(token);
    },
  };
}

/** Wraps a portal operation in its chain: `handlerChain` with `httpMiddlewares`, the token admitting. */
export function portalHandler(
  fn: PortalOperationCode,
  door: PortalDoor,
  options: PortalHandlerOptions = {},
): HttpHandler {
  return handlerChain<APIGatewayProxyEvent, APIGatewayProxyResult, AccountContext>(
    (event, context) => fn(event, context.portalAccount as PortalAccount, context),
    httpMiddlewares<AccountContext>({
      ...options,
      headers: cors({ origins: [door.origin] }) as HttpMiddleware,
      admission: idToken(door.verifier),
    }),
  );
}

/**
 * The audit context of `account`'s request: the account as actor, API Gateway's request id, the
 * caller's address and user agent, and `reason` when given.
 */
export function accountAuditContext(
  event: APIGatewayProxyEvent,
  account: PortalAccount,
  reason?: string,
): AuditContext {
  const { identity, requestId } = event.requestContext;
  return {
    actor: accountActor(account),
    requestId,
    ...(identity.sourceIp && { sourceIp: identity.sourceIp }),
    ...(identity.userAgent && { userAgent: identity.userAgent }),
    ...(reason !== undefined && { reason }),
  };
}
