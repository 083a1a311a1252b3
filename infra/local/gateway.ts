/**
 * The local API Gateway: the REST API emulated on `node:http`, stage `/v1`, reading what the stack
 * reads and calling the same handlers in API Gateway's order (docs/local-stack.md).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorizationValues } from '../../shared/http/bearer.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import { readSetting } from '../../shared/settings.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../routes.ts';
import { serveApiReference } from './api-reference.ts';
import { AuthorizerCache } from './authorizer-cache.ts';
import { localEventBus } from './event-bus.ts';
import { methodArn, type ProxyRequest } from './events.ts';
import {
  INTEGRATION_TIMEOUT_MS,
  type InvokedRoute,
  LambdaInvoker,
  type OperationHandlers,
} from './invocation.ts';
import { policyAllows } from './lambda-results.ts';
import { routeRequest } from './routing.ts';
import {
  declaresTooLargeBody,
  listen,
  readBody,
  receivedHeaders,
  sendError,
  sendGatewayResponse,
  sendJson,
  sendProxyResult,
} from './server.ts';
import { UsagePlanEmulator, usagePlanKeyOf } from './usage-plans.ts';

/** Options of {@link startGateway}. */
export interface GatewayOptions {
  /** TCP port; 0 picks a free one. @default - the setting `PORT` (3000) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Authorizer result cache TTL in seconds; 0 disables the cache. @default AUTHORIZER_CACHE_TTL_SECONDS */
  readonly authorizerCacheTtlSeconds?: number;
  /** How long an operation may take before the client gets 504. @default INTEGRATION_TIMEOUT_MS */
  readonly integrationTimeoutMs?: number;
  /**
   * The gateway's clock, epoch milliseconds: it expires the authorizer cache and drives the usage
   * plans' token buckets and quotas. The functions keep their own clock.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * Handlers that answer for operations instead of their routes' entries, behind the same
   * authorizer and usage plans (the floors of bench/round-trips.ts).
   * @default - each route's entry
   */
  readonly handlers?: OperationHandlers;
  /**
   * The figures of the two-region stack's replication model (replication.ts), served as JSON at
   * `GET /__local/replication`, outside the API and its authorizer.
   * @default - none: that path is no path of the API
   */
  readonly replicationFigures?: () => Promise<unknown>;
}

/** Where a gateway of the two-region stack serves its replication figures. */
export const REPLICATION_PATH = '/__local/replication';

/** Where a gateway serves the events its region's functions published (event-bus.ts). */
export const EVENTS_PATH = '/__local/events';

/** A running local gateway. */
export interface LocalGateway {
  /** Base URL of the API, the stage included: `http://127.0.0.1:3000/v1`. */
  readonly url: string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts the local gateway. Handlers are imported at their first request, so the table
 * environment variables (see infra/local/create-tables.ts) must be set by then.
 *
 * @throws PortInUseError when the port is taken.
 */
export async function startGateway(options: GatewayOptions = {}): Promise<LocalGateway> {
  const port = options.port ?? readSetting('PORT');
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const api: LocalApi = {
    authorizerCache: new AuthorizerCache(
      options.authorizerCacheTtlSeconds ?? AUTHORIZER_CACHE_TTL_SECONDS,
      now,
    ),
    usagePlans: new UsagePlanEmulator(now),
    lambda: await LambdaInvoker.create(options.handlers),
    integrationTimeoutMs: options.integrationTimeoutMs ?? INTEGRATION_TIMEOUT_MS,
    replicationFigures: options.replicationFigures,
    baseUrl: '',
  };
  const server = await listen((request, response) => handleRequest(request, response, api), {
    port,
    host,
    portEnv: 'PORT',
  });
  api.baseUrl = `http://${host}:${server.port}/${API_STAGE_NAME}`;
  return { url: api.baseUrl, close: () => server.close() };
}

/** The emulated API of one gateway: what it keeps between requests and how it runs functions. */
interface LocalApi {
  readonly authorizerCache: AuthorizerCache;
  readonly usagePlans: UsagePlanEmulator;
  readonly lambda: LambdaInvoker;
  /** The integration timeout, in milliseconds. */
  readonly integrationTimeoutMs: number;
  readonly replicationFigures: (() => Promise<unknown>) | undefined;
  /** The API's base URL, once the server listens: the first server of the reference page. */
  baseUrl: string;
}

/** Answers one request, in API Gateway's order (docs/local-stack.md). */
async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  api: LocalApi,
): Promise<void> {
  const requestId = randomUUID();
  response.setHeader('x-amzn-RequestId', requestId);
  const method = request.method ?? 'GET';
  if (api.replicationFigures && request.url === REPLICATION_PATH && method === 'GET') {
    return sendJson(response, await api.replicationFigures());
  }
  if (request.url === EVENTS_PATH && method === 'GET') {
    return sendJson(response, { events: (await localEventBus()).events() });
  }
  const destination = routeRequest(request.url ?? '', method);
  if ('refusal' in destination) return sendError(response, destination.refusal);
  if ('docs' in destination) {
    if (serveApiReference(destination.docs, api.baseUrl, response)) return;
    return sendGatewayResponse(response, 'MISSING_AUTHENTICATION_TOKEN');
  }
  if (declaresTooLargeBody(request)) return sendGatewayResponse(response, 'REQUEST_TOO_LARGE');
  const headers = receivedHeaders(request);
  const sourceIp = request.socket.remoteAddress;
  if ('unauthorized' in destination) {
    const { route, query } = destination.unauthorized;
    const called = { method, resource: route.path, path: route.path, query, headers, requestId };
    return invokeWithBody(request, response, api, route, { ...called, sourceIp });
  }
  const { route, path, pathParameters, query } = destination.operation;
  // The request as the authorizer sees it: the body is read only once the request is admitted.
  const headersOnly: ProxyRequest = {
    method,
    resource: route.path,
    path,
    pathParameters,
    query,
    headers,
    requestId,
    sourceIp,
  };
  // Every value: Node keeps only the first of repeated Authorization headers in `headers`.
  const [authorization, ...others] = authorizationValues({ multiValueHeaders: headers });
  // Two values are two identities: which one would the authorizer judge? Refused unseen, uncached.
  if (!authorization || others.length > 0) return sendGatewayResponse(response, 'UNAUTHORIZED');
  const authorized = await api.authorizerCache.authorize(authorization, () =>
    api.lambda.invokeAuthorizer(headersOnly),
  );
  if ('refusal' in authorized) return sendGatewayResponse(response, authorized.refusal);
  const { policyDocument, principalId, context } = authorized.result;
  if (!policyAllows(policyDocument, methodArn(method, path))) {
    return sendGatewayResponse(response, 'ACCESS_DENIED');
  }
  const usagePlanKey = usagePlanKeyOf(authorized.result);
  if (!usagePlanKey) return sendGatewayResponse(response, 'INVALID_API_KEY');
  const usageRefusal = api.usagePlans.consume(usagePlanKey.key, usagePlanKey.limits);
  if (usageRefusal) return sendGatewayResponse(response, usageRefusal);
  const authorizer = { ...context, principalId };
  return invokeWithBody(request, response, api, route, { ...headersOnly, authorizer });
}

/** Reads the body (413 past 10 MB), invokes `route`'s function with it and sends its answer. */
async function invokeWithBody(
  request: IncomingMessage,
  response: ServerResponse,
  api: LocalApi,
  route: InvokedRoute,
  called: ProxyRequest,
): Promise<void> {
  const body = await readBody(request);
  if (body === undefined) return sendGatewayResponse(response, 'REQUEST_TOO_LARGE');
  const integration = await api.lambda.invokeOperation(
    route,
    { ...called, body },
    api.integrationTimeoutMs,
  );
  if ('refusal' in integration) return sendGatewayResponse(response, integration.refusal);
  sendProxyResult(response, integration.result);
}
