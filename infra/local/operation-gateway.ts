/**
 * The steps the local admin API and portal API share, in API Gateway's order: the route (none, or
 * no such method on a path: MISSING_AUTHENTICATION_TOKEN), the payload limit, the API's own
 * authorizer (admin-gateway.ts: AWS_IAM; portal-gateway.ts: the Cognito authorizer's stand-in),
 * then the operation's function; each refusal is the API's own gateway response.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type GatewayResponseDefinition,
  type GatewayResponseType,
  gatewayResponse,
} from '../gateway-responses.ts';
import type { IamCaller, ProxyRequest } from './events.ts';
import type { InvokedRoute, LambdaInvoker } from './invocation.ts';
import { matchResource, requestUrl } from './routing.ts';
import {
  declaresTooLargeBody,
  readBody,
  receivedHeaders,
  sendError,
  sendProxyResult,
} from './server.ts';
import type { ReceivedRequest } from './sigv4.ts';

/** A request as an authorizer checks it (sigv4.ts's shape): the path with the stage, as sent. */
export interface AuthorizerRequest extends ReceivedRequest {
  readonly requestId: string;
}

/**
 * An API's authorizer: a refusal (a gateway response type), or what it adds to the function's
 * event (the signer of an AWS_IAM request).
 */
export type LocalAuthorizer = (
  request: AuthorizerRequest,
) => Promise<{ readonly refusal?: GatewayResponseType; readonly caller?: IamCaller }>;

/** A local REST API of the stage beside the public one: its stage, routes and answers. */
export interface OperationApi {
  /** Its stage, the first segment of its paths, e.g. `admin`. */
  readonly stageName: string;
  /** Its route table's rows, each with the method and resource path it serves. */
  readonly routes: readonly (InvokedRoute & { readonly method: string; readonly path: string })[];
  /** Its gateway responses. */
  readonly responses: readonly GatewayResponseDefinition[];
  readonly lambda: LambdaInvoker;
  /** How long an operation may take before the client gets 504. */
  readonly integrationTimeoutMs: number;
}

/** Answers with `api`'s gateway response of a type. */
export function sendApiResponse(
  response: ServerResponse,
  api: Pick<OperationApi, 'responses'>,
  type: GatewayResponseType,
): void {
  sendError(response, gatewayResponse(type, api.responses));
}

/**
 * Answers one request to `api` in API Gateway's order: its route, the payload limit (the body is
 * read before the authorizer, as a signature covers its hash), `authorize`, then the function.
 */
export async function answerOperation(
  request: IncomingMessage,
  response: ServerResponse,
  api: OperationApi,
  requestId: string,
  authorize: LocalAuthorizer,
): Promise<void> {
  const method = request.method ?? 'GET';
  const received = requestUrl(request.url ?? '');
  if ('refusal' in received) return sendError(response, received.refusal);
  const { pathname, searchParams: query } = received.url;
  const paths = new Set(api.routes.map((row) => row.path));
  const match = matchResource(pathname, api.stageName, paths);
  const route = api.routes.find((row) => row.path === match?.resource && row.method === method);
  if (!match || !route) return sendApiResponse(response, api, 'MISSING_AUTHENTICATION_TOKEN');
  if (declaresTooLargeBody(request)) return sendApiResponse(response, api, 'REQUEST_TOO_LARGE');
  const body = await readBody(request);
  if (body === undefined) return sendApiResponse(response, api, 'REQUEST_TOO_LARGE');

  const headers = receivedHeaders(request);
  const authorized = await authorize({ method, path: pathname, query, headers, body, requestId });
  if (authorized.refusal) return sendApiResponse(response, api, authorized.refusal);
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
    stage: api.stageName,
    ...(authorized.caller && { caller: authorized.caller }),
  };
  const integration = await api.lambda.invokeOperation(
    route,
    proxyRequest,
    api.integrationTimeoutMs,
  );
  if ('refusal' in integration) return sendApiResponse(response, api, integration.refusal);
  sendProxyResult(response, integration.result);
}
