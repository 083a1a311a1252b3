/**
 * The Lambda REQUEST authorizer of every operation (petstore-spec.md, "Authentication").
 *
 * Identity source: the `Authorization` header. The bearer token is looked up by its SHA-256 (one
 * GetItem). A known, unrevoked key gets an Allow policy for the whole API, since API Gateway caches
 * the policy per token and a policy for one method ARN would deny the key's other routes; the
 * context carries `keyId`, `plan` and the key's limits (`perMinute`, `perDay`) for the functions'
 * rate limiter, and `usageIdentifierKey` selects the key's usage plan
 * (`apiKeySourceType: AUTHORIZER`). Anything else throws `Unauthorized`, which API Gateway answers
 * with the UNAUTHORIZED gateway response: 401 `unauthorized` and `WWW-Authenticate: Bearer`.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorizationHeader, bearerToken } from '../shared/keys/bearer.ts';
import { keyLimits, keyStoreFromEnv } from '../shared/keys/store.ts';
import { logger } from '../shared/logger.ts';

const keys = keyStoreFromEnv();

/** `arn:aws:execute-api:region:account:api/stage/METHOD/path` → `…:api/stage/*` (every route). */
function wholeApiArn(methodArn: string): string {
  const [arnPrefix = '', stage = '*'] = methodArn.split('/');
  return `${arnPrefix}/${stage}/*`;
}

/**
 * @param event REQUEST authorizer event; only its `Authorization` header and `methodArn` are read.
 * @returns Allow policy for the whole API, `principalId` = key id, context
 *   `{ keyId, plan, perMinute, perDay }`, `usageIdentifierKey`. A plan change reaches the
 *   functions when the cached result expires (60 s).
 * @throws Error('Unauthorized') for a missing, malformed, unknown or revoked key (HTTP 401 at the gateway).
 */
export async function handler(
  event: APIGatewayRequestAuthorizerEvent,
): Promise<APIGatewayAuthorizerResult> {
  const token = bearerToken(authorizationHeader(event.headers));
  const key = token ? await keys.findByToken(token) : undefined;
  if (!key || key.revokedAt) {
    logger.info('Refused API key', { reason: key ? 'revoked' : token ? 'unknown' : 'malformed' });
    throw new Error('Unauthorized');
  }
  return {
    principalId: key.keyId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: wholeApiArn(event.methodArn) },
      ],
    },
    context: { keyId: key.keyId, plan: key.plan, ...keyLimits(key) },
    usageIdentifierKey: key.usageIdentifier,
  };
}
