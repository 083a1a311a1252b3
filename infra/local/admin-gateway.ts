/**
 * The local admin API: the second REST API of a stage emulated on a listener of its own (as it has
 * a host of its own on AWS), routed by the admin route table (infra/admin-routes.ts), every method
 * AWS_IAM-authorized: a request's SigV4 signature is
 * checked against the local stack's own credentials (sigv4.ts) before its function runs, and the
 * function gets API Gateway's IAM-authorized event, the signer in `requestContext.identity`
 * (docs/local-stack.md, "The admin API").
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ADMIN_API_STAGE_NAME } from '../../shared/admin-operations.ts';
import type { LocalCredentials } from '../../shared/dynamodb/clients.ts';
import { logger } from '../../shared/logger.ts';
import { ADMIN_ROUTES, adminResourcePaths } from '../admin-routes.ts';
import {
  ADMIN_GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponse,
} from '../gateway-responses.ts';
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
import { checkSignature, type SigningPrincipal } from './sigv4.ts';
import { LOCAL_OPERATOR, LOCAL_REGION } from './stack-files.ts';

/** Options of {@link startAdminGateway}. */
export interface AdminGatewayOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** Who may sign requests: the local stack's own credentials. */
  readonly principals: readonly SigningPrincipal[];
  /** The region requests are signed for. */
  readonly region: string;
  /**
   * The gateway's clock, epoch milliseconds, against which a signature's time is checked.
   * @default Date.now
   */
  readonly now?: () => number;
  /** How long an operation may take before the client gets 504. @default INTEGRATION_TIMEOUT_MS */
  readonly integrationTimeoutMs?: number;
  /**
   * Handlers that answer for operations instead of their routes' entries, behind the same
   * signature check (tests: the operations on a test's own ports).
   * @default - each route's entry
   */
  readonly handlers?: OperationHandlers;
}

/** A running local admin API. */
export interface LocalAdminGateway {
  /** Base URL of the admin API, its stage included: `http://127.0.0.1:3100/admin`. */
  readonly url: string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts the local admin API. Its handlers are imported at their first request, so the table
 * environment variables (see infra/local/create-tables.ts) must be set by then.
 *
 * @throws PortInUseError when the port is taken.
 */
export async function startAdminGateway(options: AdminGatewayOptions): Promise<LocalAdminGateway> {
  const host = options.host ?? '127.0.0.1';
  const api: AdminApi = {
    ...options,
    now: options.now ?? Date.now,
    lambda: await LambdaInvoker.create(options.handlers),
    integrationTimeoutMs: options.integrationTimeoutMs ?? INTEGRATION_TIMEOUT_MS,
  };
  const server = await listen((request, response) => handleAdminRequest(request, response, api), {
    port: options.port,
    host,
    portEnv: 'ADMIN_PORT',
  });
  return {
    url: `http://${host}:${server.port}/${ADMIN_API_STAGE_NAME}`,
    close: () => server.close(),
  };
}

/** The emulated admin API: its options and how it runs functions. */
interface AdminApi extends Required<Omit<AdminGatewayOptions, 'host' | 'port' | 'handlers'>> {
  readonly lambda: LambdaInvoker;
}

/** The admin route table's resource paths. */
const ADMIN_PATHS = [...adminResourcePaths().keys()];

/** Answers with the admin API's gateway response of a type (`ADMIN_GATEWAY_RESPONSES`). */
function sendAdminResponse(response: ServerResponse, type: GatewayResponseType): void {
  sendError(response, gatewayResponse(type, ADMIN_GATEWAY_RESPONSES));
}

/**
 * Answers one request in API Gateway's order for an AWS_IAM method: route (no route, or no such
 * method on a path: MISSING_AUTHENTICATION_TOKEN, 403, as on a RestApi without ANY mocks),
 * payload limit, the signature (each refusal a 403 of `ADMIN_GATEWAY_RESPONSES`, its reason
 * logged; the body is read first, as its hash is signed), then the function with the signer's
 * identity.
 */
async function handleAdminRequest(
  request: IncomingMessage,
  response: ServerResponse,
  api: AdminApi,
): Promise<void> {
  const requestId = randomUUID();
  response.setHeader('x-amzn-RequestId', requestId);
  const method = request.method ?? 'GET';
  const received = requestUrl(request.url ?? '');
  if ('refusal' in received) return sendError(response, received.refusal);
  const { pathname, searchParams: query } = received.url;
  const match = matchResource(pathname, ADMIN_API_STAGE_NAME, ADMIN_PATHS);
  const route = ADMIN_ROUTES.find((row) => row.path === match?.resource && row.method === method);
  if (!match || !route) return sendAdminResponse(response, 'MISSING_AUTHENTICATION_TOKEN');
  if (declaresTooLargeBody(request)) return sendAdminResponse(response, 'REQUEST_TOO_LARGE');
  const body = await readBody(request);
  if (body === undefined) return sendAdminResponse(response, 'REQUEST_TOO_LARGE');

  const headers = receivedHeaders(request);
  const signature = await checkSignature(
    { method, path: pathname, query, headers, body },
    api.principals,
    api.region,
    api.now(),
  );
  if ('refusal' in signature) {
    logger.info('Admin API refused the signature', { requestId, reason: signature.reason });
    return sendAdminResponse(response, signature.refusal);
  }
  const { accessKeyId, userArn, userId } = signature.principal;
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
    stage: ADMIN_API_STAGE_NAME,
    caller: { accessKey: accessKeyId, userArn, userId },
  };
  const integration = await api.lambda.invokeOperation(
    route,
    proxyRequest,
    api.integrationTimeoutMs,
  );
  if ('refusal' in integration) return sendAdminResponse(response, integration.refusal);
  sendProxyResult(response, integration.result);
}

/**
 * The local admin API on `port`, admitting only the stack's own `credentials` (as the local
 * operator), on the tables and `DYNAMODB_ENDPOINT` already in the environment.
 * @throws PortInUseError when the port is taken.
 */
export function startLocalAdminApi(
  port: number,
  host: string,
  credentials: LocalCredentials,
): Promise<LocalAdminGateway> {
  return startAdminGateway({
    port,
    host,
    principals: [{ ...credentials, ...LOCAL_OPERATOR }],
    region: LOCAL_REGION,
  });
}
