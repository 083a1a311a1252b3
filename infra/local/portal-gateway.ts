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
import { PORTAL_GATEWAY_RESPONSES } from '../gateway-responses.ts';
import { PORTAL_ROUTES, portalResourcePaths } from '../portal-routes.ts';
import { INTEGRATION_TIMEOUT_MS, LambdaInvoker, type OperationHandlers } from './invocation.ts';
import { answerOperation, type LocalAuthorizer, type OperationApi } from './operation-gateway.ts';
import { matchResource, requestUrl } from './routing.ts';
import { listen } from './server.ts';

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
  const api: OperationApi = {
    stageName: PORTAL_API_STAGE_NAME,
    routes: PORTAL_ROUTES,
    responses: PORTAL_GATEWAY_RESPONSES,
    lambda: await LambdaInvoker.create(options.handlers),
    integrationTimeoutMs: INTEGRATION_TIMEOUT_MS,
  };
  const server = await listen((request, response) => handle(request, response, options, api), {
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
 * Answers one request in API Gateway's order (`answerOperation`'s steps), OPTIONS on a path being
 * the CORS preflight, with the Cognito authorizer's stand-in: a missing, malformed or refused ID
 * token is UNAUTHORIZED (401), logged. Every answer carries the portal's origin, as the stage's
 * gateway responses and functions do.
 */
async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: PortalGatewayOptions,
  api: OperationApi,
): Promise<void> {
  const requestId = randomUUID();
  response.setHeader('x-amzn-RequestId', requestId);
  response.setHeader('Access-Control-Allow-Origin', options.origin);
  if (request.method === 'OPTIONS') {
    const received = requestUrl(request.url ?? '');
    const pathname = 'url' in received ? received.url.pathname : '';
    const match = matchResource(pathname, PORTAL_API_STAGE_NAME, PORTAL_PATHS.keys());
    if (match) return preflight(response, PORTAL_PATHS.get(match.resource));
  }
  const authorizer: LocalAuthorizer = async ({ headers }) => {
    const values = authorizationValues({ multiValueHeaders: headers });
    const token = values.length === 1 ? bearerToken(values[0]) : undefined;
    if (token === undefined) return { refusal: 'UNAUTHORIZED' };
    try {
      await options.verifier.verify(token);
      return {};
    } catch (error) {
      logger.info('The portal API refused the ID token', { requestId, error });
      return { refusal: 'UNAUTHORIZED' };
    }
  };
  return answerOperation(request, response, api, requestId, authorizer);
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
