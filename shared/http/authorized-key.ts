/** The key of a request, as the authorizer's context hands it to the functions. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { RequestLimits } from '../plans.ts';

/** A request's API key: its id and the limits the authorizer issued with it (validated there). */
export interface AuthorizedKey {
  readonly keyId: string;
  readonly limits: RequestLimits;
}

/**
 * The key's id and limits from the authorizer's context (strings), read once per request.
 * @throws Error when the context lacks them: a deployment fault, never a client's.
 */
export function authorizedKey(event: APIGatewayProxyEvent): AuthorizedKey {
  const context = event.requestContext.authorizer;
  const keyId = context?.keyId;
  const limits = { perMinute: Number(context?.perMinute), perDay: Number(context?.perDay) };
  if (typeof keyId !== 'string' || !Number.isFinite(limits.perMinute + limits.perDay)) {
    throw new Error('The authorizer context lacks keyId, perMinute or perDay');
  }
  return { keyId, limits };
}
