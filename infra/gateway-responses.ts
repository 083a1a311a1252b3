/**
 * The responses API Gateway makes by itself, each an Error body (docs/api.md, "Errors"), each with
 * a fixed status (docs/architecture.md); the stack and the local gateway answer with the same rows.
 */
import { ERROR_CATALOGUE, type ErrorBody, type ErrorCode } from '../shared/http/http-errors.ts';
import { RATE_LIMIT_HEADERS } from '../shared/http/rate-limit-headers.ts';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../shared/http/unavailable.ts';
import { REFUSED_SCOPE } from '../shared/keys/scopes.ts';
import { InvalidIdTokenError } from '../shared/portal/portal-errors.ts';
import { resourcePaths } from './routes.ts';

/** API Gateway's response types (the `ResponseType` of aws-cdk-lib/aws-apigateway). */
export type GatewayResponseType =
  | 'ACCESS_DENIED'
  | 'API_CONFIGURATION_ERROR'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'AUTHORIZER_FAILURE'
  | 'BAD_REQUEST_BODY'
  | 'BAD_REQUEST_PARAMETERS'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX'
  | 'EXPIRED_TOKEN'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'INVALID_API_KEY'
  | 'INVALID_SIGNATURE'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'QUOTA_EXCEEDED'
  | 'REQUEST_TOO_LARGE'
  | 'RESOURCE_NOT_FOUND'
  | 'THROTTLED'
  | 'UNAUTHORIZED'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'WAF_FILTERED';

/** One gateway response: the Error body and any extra headers (unquoted values). */
export interface GatewayResponseDefinition {
  readonly type: GatewayResponseType;
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string>>;
}

function row(
  type: GatewayResponseType,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): GatewayResponseDefinition {
  return { type, body: { code, message, status: ERROR_CATALOGUE[code].status }, headers };
}

const UNAUTHORIZED_MESSAGE =
  'Missing or invalid API key. Send it as "Authorization: Bearer <API_KEY>".';
const FORBIDDEN_MESSAGE = 'This API key may not call this operation.';
const INTERNAL_MESSAGE = 'An unexpected error occurred.';

/**
 * `Retry-After` of THROTTLED, in seconds. A gateway response is static, so API Gateway cannot
 * compute the delay. The edge only throttles a key far past its per-minute limit (the functions
 * refuse first, and the usage plan's burst is `BACKSTOP_FACTOR` times that limit), and its token
 * bucket refills at the per-minute rate: 60 s after it stops, a key has a minute's requests again.
 */
export const THROTTLED_RETRY_AFTER_SECONDS = 60;

/**
 * `Retry-After` of QUOTA_EXCEEDED, in seconds. The quota comes back when the usage plan's day
 * ends, a time a static gateway response cannot compute; an hour is a conservative interval to
 * poll at: at most 24 refused requests a day, and the client resumes at most an hour late.
 */
export const QUOTA_EXCEEDED_RETRY_AFTER_SECONDS = 3_600;

/**
 * `WWW-Authenticate` of ACCESS_DENIED (RFC 6750, section 3.1). The authorizer's policy refuses
 * only routes outside the key's scopes, and a key lacking any route's scope lacks `REFUSED_SCOPE`
 * (shared/keys/scopes.ts): a static header, as gateway responses have, names the right scope.
 */
export const INSUFFICIENT_SCOPE_CHALLENGE = `Bearer error="insufficient_scope", scope="${REFUSED_SCOPE}"`;

/** Headers of the usage plan's refusals: nothing is left, and when to try again. */
function edgeRefusalHeaders(retryAfterSeconds: number): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.retryAfter]: String(retryAfterSeconds),
    [RATE_LIMIT_HEADERS.remaining]: '0',
  };
}

/** Every gateway response of the API, one per response type. */
export const GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  row('UNAUTHORIZED', 'unauthorized', UNAUTHORIZED_MESSAGE, { 'WWW-Authenticate': 'Bearer' }),
  row(
    'ACCESS_DENIED',
    'insufficient_scope',
    `This API key's scopes do not cover this operation; it needs the scope ${REFUSED_SCOPE}.`,
    { 'WWW-Authenticate': INSUFFICIENT_SCOPE_CHALLENGE },
  ),
  row('INVALID_API_KEY', 'forbidden', 'This API key is not enabled for this stage.'),
  row('EXPIRED_TOKEN', 'forbidden', FORBIDDEN_MESSAGE),
  row('INVALID_SIGNATURE', 'forbidden', FORBIDDEN_MESSAGE),
  row('WAF_FILTERED', 'forbidden', 'The request was blocked by the firewall.'),
  row('MISSING_AUTHENTICATION_TOKEN', 'not_found', 'No route matches this path.'),
  row('RESOURCE_NOT_FOUND', 'not_found', 'No route matches this path.'),
  row('BAD_REQUEST_BODY', 'invalid_body', 'The request body is invalid.'),
  row('BAD_REQUEST_PARAMETERS', 'invalid_parameter', 'A request parameter is invalid.'),
  row(
    'REQUEST_TOO_LARGE',
    'payload_too_large',
    "The request is larger than API Gateway's 10 MB payload limit.",
  ),
  row('UNSUPPORTED_MEDIA_TYPE', 'unsupported_media_type', 'Send the body as application/json.'),
  row(
    'THROTTLED',
    'rate_limited',
    `Too many requests; back off and retry after ${THROTTLED_RETRY_AFTER_SECONDS} seconds.`,
    edgeRefusalHeaders(THROTTLED_RETRY_AFTER_SECONDS),
  ),
  row(
    'QUOTA_EXCEEDED',
    'quota_exceeded',
    `The API key's daily quota is used up; back off and retry after ${QUOTA_EXCEEDED_RETRY_AFTER_SECONDS} seconds.`,
    edgeRefusalHeaders(QUOTA_EXCEEDED_RETRY_AFTER_SECONDS),
  ),
  row('DEFAULT_4XX', 'bad_request', 'The request was rejected.'),
  row('API_CONFIGURATION_ERROR', 'internal_error', INTERNAL_MESSAGE),
  row('AUTHORIZER_CONFIGURATION_ERROR', 'internal_error', INTERNAL_MESSAGE),
  // The authorizer fails when the keys table fails or does not answer in time: the key may be
  // valid, so neither 401 nor a bug's 500.
  row(
    'AUTHORIZER_FAILURE',
    'service_unavailable',
    `The API key could not be checked; retry after ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
    { [RATE_LIMIT_HEADERS.retryAfter]: String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) },
  ),
  row('DEFAULT_5XX', 'internal_error', INTERNAL_MESSAGE),
  row('INTEGRATION_FAILURE', 'bad_gateway', 'The backend failed to answer.'),
  row('INTEGRATION_TIMEOUT', 'gateway_timeout', 'The backend did not answer in time.'),
];

/** Why the admin API refuses a request before any function runs (AWS_IAM authorization). */
export const ADMIN_FORBIDDEN_MESSAGE =
  'The request is not signed (SigV4) by a principal the admin API admits, or its signature is wrong or older than 15 minutes.';

/** The public API's responses the admin API answers alike: bodies, limits, backend failures. */
const SHARED_WITH_ADMIN: ReadonlySet<GatewayResponseType> = new Set([
  'BAD_REQUEST_BODY',
  'BAD_REQUEST_PARAMETERS',
  'REQUEST_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'DEFAULT_4XX',
  'API_CONFIGURATION_ERROR',
  'DEFAULT_5XX',
  'INTEGRATION_FAILURE',
  'INTEGRATION_TIMEOUT',
]);

/**
 * The admin API's gateway responses (docs/admin-openapi.yaml): every refusal of IAM authorization
 * (no signature, a wrong or stale one, a principal the resource policy or its own policy does not
 * admit) is 403 `forbidden`, and so is an unknown path (API Gateway cannot tell an unsigned request
 * from one for no route: both are MISSING_AUTHENTICATION_TOKEN); the rest as the public API's.
 */
export const ADMIN_GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  ...(['UNAUTHORIZED', 'ACCESS_DENIED', 'EXPIRED_TOKEN', 'INVALID_SIGNATURE'] as const).map(
    (type) => row(type, 'forbidden', ADMIN_FORBIDDEN_MESSAGE),
  ),
  row(
    'MISSING_AUTHENTICATION_TOKEN',
    'forbidden',
    'The request is not signed (SigV4), or no route matches this path.',
  ),
  ...GATEWAY_RESPONSES.filter((response) => SHARED_WITH_ADMIN.has(response.type)),
];

/**
 * The portal API's gateway responses (docs/portal-openapi.yaml): its Cognito authorizer's
 * refusal is 401 `unauthorized` with `WWW-Authenticate: Bearer`, as the functions' own; an unknown
 * path 404 `not_found`; the rest as the admin API's. On a stage each also carries the portal's
 * origin for CORS (the stack adds it; the local gateway too).
 */
export const PORTAL_GATEWAY_RESPONSES: readonly GatewayResponseDefinition[] = [
  // The functions' own words for the same refusal.
  row('UNAUTHORIZED', 'unauthorized', new InvalidIdTokenError().message, {
    'WWW-Authenticate': 'Bearer',
  }),
  ...GATEWAY_RESPONSES.filter(
    ({ type }) =>
      SHARED_WITH_ADMIN.has(type) ||
      type === 'MISSING_AUTHENTICATION_TOKEN' ||
      type === 'WAF_FILTERED',
  ),
];

/**
 * The gateway response of one type.
 *
 * @param responses The API's gateway responses. @default GATEWAY_RESPONSES - the public API's
 */
export function gatewayResponse(
  type: GatewayResponseType,
  responses: readonly GatewayResponseDefinition[] = GATEWAY_RESPONSES,
): GatewayResponseDefinition {
  const found = responses.find((response) => response.type === type);
  if (!found) throw new Error(`No gateway response is defined for ${type}`);
  return found;
}

/**
 * The 405 answer for a known path called with a method it does not serve. Deployed, a mock
 * integration on the path's ANY method returns it; locally the emulator does.
 *
 * @param path A resource path of the route table, e.g. `/pets`.
 * @returns The Error body and the `Allow` header listing the path's methods.
 */
export function methodNotAllowed(path: string): { body: ErrorBody; allow: string } {
  const allow = (resourcePaths().get(path) ?? []).join(', ');
  return {
    body: {
      code: 'method_not_allowed',
      message: `This path accepts only: ${allow}.`,
      status: ERROR_CATALOGUE.method_not_allowed.status,
    },
    allow,
  };
}
