/**
 * The local portal API: the portal's REST API emulated on a listener of its own (`PORTAL_API_PORT`,
 * as it has a host of its own on AWS), routed by infra/portal-routes.ts, with API Gateway's CORS
 * preflight for the portal's origin and a stand-in for its Cognito authorizer that checks the ID
 * token with the functions' own verifier (shared/cognito/id-token-verifier.ts) before the
 * function runs (docs/local-stack.md, "The portal").
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorizationValues, bearerToken } from '../../shared/http/bearer.ts';
import { logger } from '../../shared/logger.ts';
import type { IdTokenVerifier } from '../../shared/portal/portal-ports.ts';
import { PORTAL_API_STAGE_NAME, PORTAL_CORS } from '../../shared/portal-operations.ts';
import {
  type GatewayResponseType,
  gatewayResponse,
  PORTAL_GATEWAY_RESPONSES,
} from '../gateway-responses.ts';
import { PORTAL_ROUTES, portalResourcePaths } from '../portal-routes.ts';
import type { ProxyRequest } from './events.ts';
import { INTEGRATION_TIMEOUT_MS, LambdaInvoker, type OperationHandlers } from './invocation.ts';
import { matchResource, requestUrl } from './routing.ts';
import {
  declaresTooLargeBody,
  listen,
  readBody,
  receivedHeaders,
  sendError,
  sendProxyResult,
} from './server.ts';

/** Options of {@link startPortalGateway}. */
export interface PortalGatewayOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** The portal's origin, the one CORS answers (`PORTAL_ORIGIN`). */
  readonly origin: string;
  /** The Cognito authorizer's check: the functions' verifier on the stand-in's pool. */
  readonly verifier: IdTokenVerifier;
  /**
   * Handlers that answer for operations instead of their routes' entries, behind the same
   * checks (tests: the operations on a test's own ports). @default - each route's entry
   */
  readonly handlers?: OperationHandlers;
}

/** A running local portal API. */
export interface LocalPortalGateway {
  /** Base URL of the portal API, its stage included: `http://127.0.0.1:3400/portal`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Starts the local portal API; its handlers are imported at their first request, so the
 * functions' settings must be in the environment by then.
 * @throws PortInUseError when the port is taken.
 */
export async function startPortalGateway(
  options: PortalGatewayOptions,
): Promise<LocalPortalGateway> {
  const host = options.host ?? '127.0.0.1';
  const lambda = await LambdaInvoker.create(options.handlers);
  const server = await listen((request, response) => handle(request, response, options, lambda), {
    port: options.port,
    host,
    portEnv: 'PORTAL_API_PORT',
  });
  return {
    url: `http://${host}:${server.port}/${PORTAL_API_STAGE_NAME}`,
    close: () => server.close(),
  };
}

const PORTAL_PATHS = portalResourcePaths();

/**
 * Answers one request in API Gateway's order: route (none, or no such method on a path:
 * MISSING_AUTHENTICATION_TOKEN, 404 `not_found`; OPTIONS on a path: the CORS preflight), payload
 * limit, the Cognito authorizer (UNAUTHORIZED, 401), then the function. Every answer carries the
 * portal's origin, as the stage's gateway responses and functions do.
 */
async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: PortalGatewayOptions,
  lambda: LambdaInvoker,
): Promise<void> {
  const requestId = randomUUID();
  response.setHeader('x-amzn-RequestId', requestId);
  response.setHeader('Access-Control-Allow-Origin', options.origin);
  const method = request.method ?? 'GET';
  const received = requestUrl(request.url ?? '');
  if ('refusal' in received) return sendError(response, received.refusal);
  const { pathname, searchParams: query } = received.url;
  const match = matchResource(pathname, PORTAL_API_STAGE_NAME, PORTAL_PATHS.keys());
  if (match && method === 'OPTIONS') return preflight(response, PORTAL_PATHS.get(match.resource));
  const route = PORTAL_ROUTES.find((row) => row.path === match?.resource && row.method === method);
  if (!match || !route) return send(response, 'MISSING_AUTHENTICATION_TOKEN');
  if (declaresTooLargeBody(request)) return send(response, 'REQUEST_TOO_LARGE');
  const body = await readBody(request);
  if (body === undefined) return send(response, 'REQUEST_TOO_LARGE');

  const headers = receivedHeaders(request);
  const values = authorizationValues({ multiValueHeaders: headers });
  const token = values.length === 1 ? bearerToken(values[0]) : undefined;
  try {
    if (token === undefined) return send(response, 'UNAUTHORIZED');
    await options.verifier.verify(token);
  } catch (error) {
    logger.info('The portal API refused the ID token', { requestId, error });
    return send(response, 'UNAUTHORIZED');
  }
  const proxyRequest: ProxyRequest = {
    method,
    resource: route.path,
    path: match.path,
    pathParameters: match.pathParameters,
    query,
    headers,
    body,
    requestId,
    sourceIp: request.socket.remoteAddress,
    stage: PORTAL_API_STAGE_NAME,
  };
  const integration = await lambda.invokeOperation(route, proxyRequest, INTEGRATION_TIMEOUT_MS);
  if ('refusal' in integration) return send(response, integration.refusal);
  sendProxyResult(response, integration.result);
}

/** The portal API's gateway response of a type. */
function send(response: ServerResponse, type: GatewayResponseType): void {
  sendError(response, gatewayResponse(type, PORTAL_GATEWAY_RESPONSES));
}

/** API Gateway's CORS preflight (a mock integration): the path's methods and `PORTAL_CORS`. */
function preflight(response: ServerResponse, methods: readonly string[] = []): void {
  response.writeHead(204, {
    'Access-Control-Allow-Methods': [...methods, 'OPTIONS'].join(','),
    'Access-Control-Allow-Headers': PORTAL_CORS.allowHeaders.join(','),
    'Access-Control-Max-Age': String(PORTAL_CORS.maxAgeSeconds),
  });
  response.end();
}
