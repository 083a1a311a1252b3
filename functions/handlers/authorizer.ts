/**
 * The Lambda REQUEST authorizer of every operation (docs/api.md, "Authentication"): a well-formed
 * bearer token of this stage whose key is known and valid gets a policy allowing every route its
 * scopes cover (API Gateway caches it per token and refuses the other routes with 403
 * `insufficient_scope`), context `{ keyId, plan, perMinute, perDay }` and the key's usage plan;
 * anything else 401. A keys table that fails or is too slow: 503 (AUTHORIZER_FAILURE).
 */
import type {
  APIGatewayAuthorizerResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { invocationBudgetMs, withDeadline } from '../../shared/deadline.ts';
import type { FunctionSettings } from '../../shared/function-settings.ts';
import { authorizationValues, bearerToken } from '../../shared/http/bearer.ts';
import { handlerChain } from '../../shared/http/chain.ts';
import type { KeyLookup } from '../../shared/keys/key-lookup.ts';
import { keyRefusal, limitsOfKey } from '../../shared/keys/key-records.ts';
import type { Scope } from '../../shared/keys/scopes.ts';
import { mayBeKeyOf, type TokenStage, tokenStageOf } from '../../shared/keys/token.ts';
import { logger } from '../../shared/logger.ts';
import { OPERATIONS } from '../../shared/operations.ts';

/**
 * Longest the key lookup may take, in milliseconds. A GetItem takes a few; the cap keeps a slow
 * keys table from using up the time the request still needs in its function, so that the whole
 * request is answered within the function's own bound.
 */
export const KEY_LOOKUP_DEADLINE_MS = 3_000;

/**
 * The method ARNs of the routes that `scopes` cover, on the API and stage of `methodArn`
 * (`arn:aws:execute-api:region:account:api/stage/METHOD/path`), a path parameter as `*`: e.g.
 * `…:api/v1/GET/pets` and `…:api/v1/GET/pets/*` for `pets:read`. Every covered route, not only
 * the one called: API Gateway caches the policy per token and checks each later call against it.
 */
export function allowedMethodArns(methodArn: string, scopes: readonly Scope[]): string[] {
  const [arnPrefix = '', stage = '*'] = methodArn.split('/');
  return OPERATIONS.filter((route) => scopes.includes(route.scope)).map(
    (route) => `${arnPrefix}/${stage}/${route.method}${route.path.replace(/\{\w+\}/g, '*')}`,
  );
}

/**
 * @param event REQUEST authorizer event; its `Authorization` values (`multiValueHeaders`) and
 *   `methodArn` are read.
 * @returns A policy allowing the routes of the key's scopes (`allowedMethodArns`), `principalId` = key id, context
 *   `{ keyId, plan, perMinute, perDay }`, `usageIdentifierKey`. A plan change reaches the
 *   functions when the cached result expires (60 s).
 * @throws Error('Unauthorized') for a missing, malformed, repeated, unknown, revoked, expired or
 *   rolled key's old token past its grace (HTTP 401 at the gateway); the keys table's error when it fails or the deadline passes (HTTP 503).
 */
async function authorize(
  keys: KeyLookup,
  tokenStage: TokenStage,
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
        {
          Action: 'execute-api:Invoke',
          Effect: 'Allow',
          Resource: allowedMethodArns(event.methodArn, key.scopes),
        },
      ],
    },
    context: { keyId: key.keyId, plan: key.plan, ...limitsOfKey(key) },
    usageIdentifierKey: key.usageIdentifier,
  };
}

/**
 * The Lambda handler of the authorizer on `container`'s key lookup, accepting the tokens of the
 * stage `PETSTORE_STAGE`: `handlerChain` with no middleware but the logger context (every log
 * line carries the invocation's request id); API Gateway answers what it throws.
 */
export function authorizerHandler(container: { settings: FunctionSettings; keys: KeyLookup }) {
  const { keys } = container;
  const tokenStage = tokenStageOf(container.settings.PETSTORE_STAGE);
  return handlerChain(function authorizer(
    event: APIGatewayRequestAuthorizerEvent,
    context: Context,
  ): Promise<APIGatewayAuthorizerResult> {
    return authorize(keys, tokenStage, event, context);
  });
}
