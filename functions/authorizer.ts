/**
 * The Lambda REQUEST authorizer of every operation (petstore-spec.md, "Authentication").
 *
 * Identity source: the `Authorization` header. A token whose prefix does not name this stage or
 * whose checksum is wrong is refused without a read (shared/keys/token.ts); any other is looked up
 * by its SHA-256 (one GetItem). A known key that is not revoked, expired or rolled out gets an Allow policy for the whole API, since API Gateway caches
 * the policy per token and a policy for one method ARN would deny the key's other routes; the
 * context carries `keyId`, `plan` and the key's limits (`perMinute`, `perDay`) for the functions'
 * rate limiter, and `usageIdentifierKey` selects the key's usage plan
 * (`apiKeySourceType: AUTHORIZER`). Anything else throws `Unauthorized`, which API Gateway answers
 * with the UNAUTHORIZED gateway response: 401 `unauthorized` and `WWW-Authenticate: Bearer`.
 *
 * A keys table that fails or does not answer before the invocation's deadline makes the handler
 * throw another error, which API Gateway answers with the AUTHORIZER_FAILURE gateway response: 503
 * `service_unavailable` with `Retry-After`, never a 401 (the key may be valid) nor a 500.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { invocationBudgetMs, withDeadline } from '../shared/deadline.ts';
import { authorizationValues, bearerToken } from '../shared/keys/bearer.ts';
import { keyRefusal, keyStoreFromEnv, limitsOfKey } from '../shared/keys/store.ts';
import { mayBeKeyOf, tokenStageOf } from '../shared/keys/token.ts';
import { logger } from '../shared/logger.ts';
import { readSetting } from '../shared/settings.ts';

const keys = keyStoreFromEnv();
/** The stage whose tokens this authorizer accepts (`PETSTORE_STAGE`). */
const tokenStage = tokenStageOf(readSetting('PETSTORE_STAGE'));

/**
 * Longest the key lookup may take, in milliseconds. A GetItem takes a few; the cap keeps a slow
 * keys table from using up the time the request still needs in its function, so that the whole
 * request is answered within the function's own bound.
 */
export const KEY_LOOKUP_DEADLINE_MS = 3_000;

/** `arn:aws:execute-api:region:account:api/stage/METHOD/path` → `…:api/stage/*` (every route). */
function wholeApiArn(methodArn: string): string {
  const [arnPrefix = '', stage = '*'] = methodArn.split('/');
  return `${arnPrefix}/${stage}/*`;
}

/**
 * @param event REQUEST authorizer event; its `Authorization` values (`multiValueHeaders`) and
 *   `methodArn` are read.
 * @returns Allow policy for the whole API, `principalId` = key id, context
 *   `{ keyId, plan, perMinute, perDay }`, `usageIdentifierKey`. A plan change reaches the
 *   functions when the cached result expires (60 s).
 * @throws Error('Unauthorized') for a missing, malformed, repeated, unknown, revoked, expired or
 *   rolled-out key (HTTP 401 at the gateway); the keys table's error when it fails or the deadline passes (HTTP 503).
 */
async function authorize(
  event: APIGatewayRequestAuthorizerEvent,
  context: Context,
): Promise<APIGatewayAuthorizerResult> {
  const values = authorizationValues(event);
  // Two Authorization headers are ambiguous: which one would the cache and the check have seen?
  const token = values.length === 1 ? bearerToken(values[0]) : undefined;
  const wellFormed = token !== undefined && mayBeKeyOf(token, tokenStage);
  const key = wellFormed
    ? await withDeadline(invocationBudgetMs(context, KEY_LOOKUP_DEADLINE_MS), (signal) =>
        keys.findByToken(token, { signal }),
      )
    : undefined;
  const refusal = key && keyRefusal(key, Date.now());
  if (!key || refusal) {
    const reason =
      refusal ?? (wellFormed ? 'unknown' : values.length > 1 ? 'repeated' : 'malformed');
    logger.info('Refused API key', { reason });
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
    context: { keyId: key.keyId, plan: key.plan, ...limitsOfKey(key) },
    usageIdentifierKey: key.usageIdentifier,
  };
}

/** Lambda handler of the authorizer; every log line carries the invocation's request id. */
export const handler = middy<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>(
  authorize,
  { timeoutEarlyInMillis: 0 },
).use(injectLambdaContext(logger, { resetKeys: true }));
