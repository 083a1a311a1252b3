/**
 * Routing of the local gateway: a request target and method to an operation of the route table,
 * to the API reference page, or to the answer API Gateway gives before any authorizer runs (400,
 * 414, 404 MISSING_AUTHENTICATION_TOKEN, 405 with `Allow`), matched segment by segment.
 */
import type { ErrorBody } from '../../shared/http/http-errors.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import { gatewayResponse, methodNotAllowed } from '../gateway-responses.ts';
import { ROUTES, type RouteDefinition, resourcePaths } from '../routes.ts';
import { SECRET_SCANNING_ROUTE, type SecretScanningRoute } from '../secret-scanning-route.ts';
import { DOCS_PATH } from './api-reference.ts';
import { MAX_TARGET_BYTES, URI_TOO_LONG } from './client-errors.ts';
import type { ErrorResponse } from './server.ts';

/** A request matched to an operation of the route table. */
export interface MatchedRoute {
  readonly route: RouteDefinition;
  /** The request path without the stage, e.g. `/pets/7`. */
  readonly path: string;
  /** URL-decoded path parameters by name, e.g. `{ petId: '7' }`; empty when the route has none. */
  readonly pathParameters: Record<string, string>;
  readonly query: URLSearchParams;
}

/**
 * Where a request goes: an operation, the leaked-key endpoint (`unauthorized`: a method without
 * the authorizer), the API reference (its path, e.g. `/docs/init.js`), or an error answer.
 */
export type Destination =
  | { readonly operation: MatchedRoute }
  | { readonly unauthorized: { route: SecretScanningRoute; query: URLSearchParams } }
  | { readonly docs: string }
  | { readonly refusal: ErrorResponse };

/** Methods of the API reference page. */
const DOCS_METHODS = 'GET, HEAD';

/**
 * Routes a request by its target and method, as API Gateway does before calling the authorizer.
 *
 * @param target The request target as received (`request.url`), e.g. `/v1/pets?limit=5`.
 * @param method The HTTP method, upper case.
 */
export function routeRequest(target: string, method: string): Destination {
  const received = requestUrl(target);
  if ('refusal' in received) return received;
  const { pathname, searchParams: query } = received.url;
  if (pathname === DOCS_PATH || pathname.startsWith(`${DOCS_PATH}/`)) {
    if (method === 'GET' || method === 'HEAD') return { docs: pathname };
    return { refusal: notAllowed(DOCS_METHODS) };
  }

  if (pathname === `/${API_STAGE_NAME}${SECRET_SCANNING_ROUTE.path}`) {
    // Its one method and no ANY mock: another method is a path API Gateway does not know.
    if (method === SECRET_SCANNING_ROUTE.method) {
      return { unauthorized: { route: SECRET_SCANNING_ROUTE, query } };
    }
    return { refusal: gatewayResponse('MISSING_AUTHENTICATION_TOKEN') };
  }
  const match = matchResource(pathname, API_STAGE_NAME, resourcePaths().keys());
  if (!match) return { refusal: gatewayResponse('MISSING_AUTHENTICATION_TOKEN') };
  const route = ROUTES.find((r) => r.path === match.resource && r.method === method);
  if (!route) {
    const { body, allow } = methodNotAllowed(match.resource);
    return { refusal: { body, headers: { Allow: allow } } };
  }
  return { operation: { route, path: match.path, pathParameters: match.pathParameters, query } };
}

/** 405 `method_not_allowed` for a path whose methods are `allow` (e.g. `GET, HEAD`). */
function notAllowed(allow: string): ErrorResponse {
  const body: ErrorBody = {
    code: 'method_not_allowed',
    message: `This path accepts only: ${allow}.`,
    status: 405,
  };
  return { body, headers: { Allow: allow } };
}

/**
 * The URL of a request target, or the answer API Gateway gives a target it refuses before
 * routing: 414 past its length limit, 400 for a target not in origin form.
 */
export function requestUrl(
  target: string,
): { readonly url: URL } | { readonly refusal: ErrorResponse } {
  if (Buffer.byteLength(target) > MAX_TARGET_BYTES) {
    return { refusal: { body: URI_TOO_LONG, headers: {} } };
  }
  const url = originFormUrl(target);
  return url ? { url } : { refusal: gatewayResponse('DEFAULT_4XX') };
}

/**
 * The URL of an origin-form request target (`/v1/pets?limit=5`), or `undefined` for any other
 * form (`*`, `http://host/…`, `host:port`) or a target the URL parser refuses.
 */
function originFormUrl(target: string): URL | undefined {
  if (!target.startsWith('/')) return undefined;
  try {
    // Prefixed, so that a path starting with `//` stays a path and does not name a host.
    return new URL(`http://gateway${target}`);
  } catch {
    return undefined;
  }
}

/**
 * The resource path of a route table that a request path (stage included) names, with the path
 * without the stage and the path parameters; `undefined` when it names none.
 *
 * @param stage The API's stage, the first segment of its paths, e.g. `v1`.
 * @param resources The API's resource paths, e.g. `/pets/{petId}`.
 */
export function matchResource(
  pathname: string,
  stage: string,
  resources: Iterable<string>,
): { resource: string; path: string; pathParameters: Record<string, string> } | undefined {
  const stagePrefix = `/${stage}/`;
  if (!pathname.startsWith(stagePrefix)) return undefined;
  const path = pathname.slice(stagePrefix.length - 1);
  const segments = path.split('/');
  for (const resource of resources) {
    const parts = resource.split('/');
    if (parts.length !== segments.length) continue;
    const pathParameters: Record<string, string> = {};
    const matched = parts.every((part, index) => {
      const segment = segments[index] ?? '';
      const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
      if (!parameter) return part === segment;
      pathParameters[parameter] = decodeSegment(segment);
      return segment !== '';
    });
    if (matched) return { resource, path, pathParameters };
  }
  return undefined;
}

/** A URL-decoded path segment; a malformed escape is passed on as sent, for the function to refuse. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
