/** The key of a request, as the authorizer's context hands it to the functions. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { limitsFromContext, type RequestLimits } from '../plans.ts';

/**
 * The key's identity and limits from the authorizer's context, which API Gateway passes as strings.
 *
 * @throws Error when the context lacks them: a deployment fault (every method has the
 *   authorizer), never something a client can cause.
 */
export function authorizedKey(event: APIGatewayProxyEvent): {
  keyId: string;
  limits: RequestLimits;
} {
  const context = event.requestContext.authorizer;
  const keyId = context?.keyId;
  const limits = limitsFromContext(context);
  if (typeof keyId !== 'string' || !limits) {
    throw new Error('The authorizer context lacks keyId, perMinute or perDay');
  }
  return { keyId, limits };
}
