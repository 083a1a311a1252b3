/**
 * The local API Gateway: an emulator of the REST API on `node:http`, serving the stage `/v1`.
 *
 * It reads what the stack reads (the route table, the gateway responses) and calls the same
 * function handlers, in the order API Gateway does:
 *
 * 0. the request itself: what Node's parser refuses, a request not sent in time and `CONNECT`
 *    get an Error body (see client-errors.ts); a target that is not a path → DEFAULT_4XX (400),
 *    one over 8192 bytes → 414;
 * 1. route: unknown path → MISSING_AUTHENTICATION_TOKEN (404), known path with another method →
 *    405 `method_not_allowed` with `Allow`; a declared body over 10 MB → REQUEST_TOO_LARGE;
 * 2. authorizer, from the headers alone (the body is not read yet): no Authorization value, or
 *    more than one (ambiguous credentials) → UNAUTHORIZED without calling it; otherwise the
 *    REQUEST authorizer, its result (Unauthorized included) cached per value for the TTL in a
 *    bounded cache (authorizer-cache.ts); `Unauthorized` → UNAUTHORIZED, another error →
 *    AUTHORIZER_FAILURE, a policy that does not allow the method ARN → ACCESS_DENIED;
 * 3. usage plan (the edge backstop, see usage-plans.ts): the key's token bucket, then its daily
 *    quota, with `usagePlanSettings` of the limits in the authorizer's context → THROTTLED, then
 *    QUOTA_EXCEEDED; a context without valid limits means a key in no usage plan → INVALID_API_KEY;
 * 4. body: kept up to API Gateway's 10 MB, then REQUEST_TOO_LARGE (the rest read and dropped);
 * 5. integration: the operation's handler with a proxy event and a Lambda context; its result is
 *    copied to the response, a throw or a malformed result → INTEGRATION_FAILURE, no answer
 *    within the integration timeout (29 s) → INTEGRATION_TIMEOUT (504) at once.
 *
 * Every response carries `x-amzn-RequestId`, the request id the functions log. Invocations run as
 * on a Lambda execution environment with concurrency (Lambda Managed Instances): each in its own
 * context of the Lambda `InvokeStore`, so that the functions' shared Powertools logger writes each
 * invocation's own request id, however many run at once.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import type { Context } from 'aws-lambda';
import * as v from 'valibot';
import type { ErrorBody } from '../../shared/http/errors.ts';
import { authorizationValues } from '../../shared/keys/bearer.ts';
import { logger } from '../../shared/logger.ts';
import { limitsFromContext, type RequestLimits } from '../../shared/plans.ts';
import {
  type GatewayResponseType,
  gatewayResponse,
  methodNotAllowed,
} from '../gateway-responses.ts';
import {
  API_STAGE_NAME,
  AUTHORIZER,
  AUTHORIZER_CACHE_TTL_SECONDS,
  ROUTES,
  type RouteDefinition,
  resourcePaths,
} from '../routes.ts';
import { DOCS_PATH, serveApiReference } from './api-reference.ts';
import { AuthorizerCache } from './authorizer-cache.ts';
import {
  clientErrorBody,
  MAX_TARGET_BYTES,
  URI_TOO_LONG,
  writeErrorToSocket,
} from './client-errors.ts';
import { PortInUseError } from './errors.ts';
import {
  createAuthorizerEvent,
  createLambdaContext,
  createProxyEvent,
  methodArn,
  type ProxyRequest,
} from './events.ts';
import {
  type AuthorizerResult,
  AuthorizerResultSchema,
  type ProxyResult,
  ProxyResultSchema,
  policyAllows,
} from './lambda-results.ts';
import { UsagePlanEmulator } from './usage-plans.ts';

/** Environment variable that picks the gateway's port (default 3000). */
export const PORT_ENV = 'PORT';

/** API Gateway's payload limit: 10 MB. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/** API Gateway's integration timeout for REST APIs: 29 s. */
export const INTEGRATION_TIMEOUT_MS = 29_000;

/**
 * How long a client may take to send its request line and headers, and its whole request; then
 * it gets 408. Node checks them every {@link CONNECTIONS_CHECK_INTERVAL_MS}.
 */
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;
const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;

/**
 * Declares invocations concurrent to the functions' Powertools utilities (as Lambda Managed
 * Instances do), which then keep their per-invocation state in the Lambda `InvokeStore`. `npm
 * start` sets it before anything else: the first AWS SDK call of the process creates the
 * process's one InvokeStore, concurrent only if this is set by then. Not set here, so that it
 * does not leak into processes that the importer spawns.
 */
const MAX_CONCURRENCY_ENV = 'AWS_LAMBDA_MAX_CONCURRENCY';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** Options of {@link startGateway}. */
export interface GatewayOptions {
  /** TCP port; 0 picks a free one. @default Number(process.env.PORT ?? 3000) */
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
}

/** A running local gateway. */
export interface LocalGateway {
  /** Base URL of the API, the stage included: `http://127.0.0.1:3000/v1`. */
  readonly url: string;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Starts the local gateway. Handlers are imported at their first request, so the table
 * environment variables (see infra/local/tables.ts) must be set by then.
 *
 * @throws PortInUseError when the port is taken.
 */
export async function startGateway(options: GatewayOptions = {}): Promise<LocalGateway> {
  const port = options.port ?? Number(process.env[PORT_ENV] ?? 3000);
  const host = options.host ?? '127.0.0.1';
  const now = options.now ?? Date.now;
  const stage: Stage = {
    authorize: cachedAuthorizer(
      options.authorizerCacheTtlSeconds ?? AUTHORIZER_CACHE_TTL_SECONDS,
      now,
    ),
    usagePlans: new UsagePlanEmulator(now),
    integrationTimeoutMs: options.integrationTimeoutMs ?? INTEGRATION_TIMEOUT_MS,
    baseUrl: '',
  };
  // Before any function is imported: Powertools refuses to log without it once concurrency is
  // declared.
  invokeStore = await concurrentInvokeStore();
  const server = createServer(
    {
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
    },
    (request, response) => {
      handleRequest(request, response, stage).catch((error: unknown) => {
        logger.error('Local gateway failed', { error });
        if (!response.headersSent) sendGatewayResponse(response, 'DEFAULT_5XX');
        else response.destroy();
      });
    },
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET') return socket.destroy();
    writeErrorToSocket(socket, clientErrorBody(error), { 'x-amzn-RequestId': randomUUID() });
  });
  // A tunnel is no request to the API: its target is no path of it.
  server.on('connect', (_request: IncomingMessage, socket) =>
    writeErrorToSocket(socket, gatewayResponse('DEFAULT_4XX').body, {
      'x-amzn-RequestId': randomUUID(),
    }),
  );
  // RFC 9110 lets a server ignore an expectation it does not know; API Gateway does.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    server.emit('request', request, response),
  );
  await new Promise<void>((listening, failed) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      failed(
        error.code === 'EADDRINUSE' ? new PortInUseError(port, 'the gateway', PORT_ENV) : error,
      ),
    );
    server.listen(port, host, listening);
  });
  const address = server.address() as AddressInfo;
  stage.baseUrl = `http://${host}:${address.port}/${API_STAGE_NAME}`;
  return {
    url: stage.baseUrl,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

/** What the emulated stage keeps between requests: the authorizer cache and the usage plans. */
interface Stage {
  readonly authorize: Authorize;
  readonly usagePlans: UsagePlanEmulator;
  readonly integrationTimeoutMs: number;
  /** The API's base URL, once the server listens: the first server of the reference page. */
  baseUrl: string;
}

async function handleRequest(
  request: IncomingMessage,
  response: ServerResponse,
  stage: Stage,
): Promise<void> {
  const requestId = randomUUID();
  response.setHeader('x-amzn-RequestId', requestId);
  const target = request.url ?? '';
  if (Buffer.byteLength(target) > MAX_TARGET_BYTES) return sendError(response, URI_TOO_LONG, {});
  const url = originFormUrl(target);
  if (!url) return sendGatewayResponse(response, 'DEFAULT_4XX');
  const method = request.method ?? 'GET';
  if (url.pathname === DOCS_PATH || url.pathname.startsWith(`${DOCS_PATH}/`)) {
    return serveDocs(url.pathname, method, stage.baseUrl, response);
  }

  const match = matchResource(url.pathname);
  if (!match) return sendGatewayResponse(response, 'MISSING_AUTHENTICATION_TOKEN');
  const route = ROUTES.find((r) => r.path === match.resource && r.method === method);
  if (!route) {
    const { body, allow } = methodNotAllowed(match.resource);
    return sendError(response, body, { Allow: allow });
  }
  if (Number(request.headers['content-length'] ?? 0) > MAX_PAYLOAD_BYTES) {
    return sendGatewayResponse(response, 'REQUEST_TOO_LARGE');
  }

  const headers = receivedHeaders(request);
  const headersOnly: ProxyRequest = {
    method,
    resource: route.path,
    path: match.path,
    pathParameters: match.pathParameters,
    query: url.searchParams,
    headers,
    requestId,
    sourceIp: request.socket.remoteAddress,
  };
  // Every value: Node keeps only the first of repeated Authorization headers in `headers`.
  const [authorization, ...others] = authorizationValues({ multiValueHeaders: headers });
  // Two values are two identities: which one would the authorizer judge? Refused unseen, uncached.
  if (!authorization || others.length > 0) return sendGatewayResponse(response, 'UNAUTHORIZED');
  const outcome = await stage.authorize(authorization, headersOnly);
  if ('refusal' in outcome) return sendGatewayResponse(response, outcome.refusal);
  const { policyDocument, principalId, context } = outcome.result;
  if (!policyAllows(policyDocument, methodArn(method, match.path))) {
    return sendGatewayResponse(response, 'ACCESS_DENIED');
  }
  const usagePlan = usagePlanOf(outcome.result);
  if (!usagePlan) return sendGatewayResponse(response, 'INVALID_API_KEY');
  const refusal = stage.usagePlans.consume(usagePlan.key, usagePlan.limits);
  if (refusal) return sendGatewayResponse(response, refusal);

  const body = await readBody(request);
  if (body === undefined) return sendGatewayResponse(response, 'REQUEST_TOO_LARGE');
  const result = await withTimeout(
    invokeOperation(route, {
      ...headersOnly,
      body,
      authorizer: { ...context, principalId },
    }),
    stage.integrationTimeoutMs,
  );
  if (result === TIMED_OUT) return sendGatewayResponse(response, 'INTEGRATION_TIMEOUT');
  if (!result) return sendGatewayResponse(response, 'INTEGRATION_FAILURE');
  sendProxyResult(response, result);
}

/** The API reference page and its files (GET or HEAD only); another path under it → 404. */
function serveDocs(pathname: string, method: string, baseUrl: string, response: ServerResponse) {
  if (method !== 'GET' && method !== 'HEAD') {
    const allow = 'GET, HEAD';
    const message = `This path accepts only: ${allow}.`;
    return sendError(
      response,
      { code: 'method_not_allowed', message, status: 405 },
      { Allow: allow },
    );
  }
  if (!serveApiReference(pathname, baseUrl, response)) {
    sendGatewayResponse(response, 'MISSING_AUTHENTICATION_TOKEN');
  }
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

const TIMED_OUT = Symbol('timed out');

/** The promise's value, or {@link TIMED_OUT} when it has not settled within `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  const timer = new AbortController();
  try {
    return await Promise.race([promise, sleep(ms, TIMED_OUT, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}

/** The resource path of the route table that a request path (stage included) names. */
function matchResource(
  pathname: string,
): { resource: string; path: string; pathParameters: Record<string, string> } | undefined {
  const stagePrefix = `/${API_STAGE_NAME}/`;
  if (!pathname.startsWith(stagePrefix)) return undefined;
  const path = pathname.slice(stagePrefix.length - 1);
  const segments = path.split('/');
  for (const resource of resourcePaths().keys()) {
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

/**
 * The body's bytes, or `undefined` when it exceeds API Gateway's 10 MB. Past 10 MB nothing more is
 * kept: the rest is read and dropped, so that the client, still sending, gets the answer rather
 * than a reset connection (the server's request timeout bounds how long it may send).
 */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes <= MAX_PAYLOAD_BYTES) chunks.push(chunk);
    else chunks.length = 0;
  }
  return bytes <= MAX_PAYLOAD_BYTES ? Buffer.concat(chunks) : undefined;
}

/** Request headers with the names as the client sent them (API Gateway keeps their case). */
function receivedHeaders(request: IncomingMessage): Record<string, string[]> {
  // Null prototype: a header named `constructor` or `__proto__` is a name like any other.
  const headers: Record<string, string[]> = Object.create(null);
  for (let i = 0; i + 1 < request.rawHeaders.length; i += 2) {
    const [name = '', value = ''] = request.rawHeaders.slice(i, i + 2);
    headers[name] = [...(headers[name] ?? []), value];
  }
  return headers;
}

/** The authorizer's verdict on an Authorization header value. */
type AuthorizerOutcome = { result: AuthorizerResult } | { refusal: GatewayResponseType };
type Authorize = (authorization: string, request: ProxyRequest) => Promise<AuthorizerOutcome>;

/**
 * The usage plan an authorized request counts against: its key (`usageIdentifierKey`, else
 * `principalId`) and the limits of the authorizer's context (`perMinute`, `perDay`; strings once
 * API Gateway has passed them on, numbers straight from the handler).
 *
 * @returns `undefined` when the context carries no valid limits: deployed, such a key would be in
 *   no usage plan, which API Gateway refuses.
 */
function usagePlanOf(result: AuthorizerResult): { key: string; limits: RequestLimits } | undefined {
  const limits = limitsFromContext(result.context);
  return limits && { key: result.usageIdentifierKey ?? result.principalId, limits };
}

/**
 * Calls the authorizer, caching its result per Authorization header values (all of them, joined
 * by a line feed, which no header value can hold) for `ttlSeconds` by
 * the clock `now` (epoch ms), as API Gateway does: an Allow (checked against each call's method
 * ARN) and an Unauthorized are cached, a failure is not.
 */
function cachedAuthorizer(ttlSeconds: number, now: () => number): Authorize {
  const cache = new AuthorizerCache<AuthorizerOutcome>(ttlSeconds, now);
  return async function authorize(authorization, request) {
    const cached = cache.get(authorization);
    if (cached) return cached;
    const outcome = await callAuthorizer(request);
    if ('result' in outcome || outcome.refusal === 'UNAUTHORIZED')
      cache.set(authorization, outcome);
    return outcome;
  };
}

async function callAuthorizer(request: ProxyRequest): Promise<AuthorizerOutcome> {
  let output: unknown;
  try {
    const handler = await loadHandler(AUTHORIZER.entry);
    output = await invoke(handler, createAuthorizerEvent(request), AUTHORIZER.entry, request);
  } catch (error) {
    if (error instanceof Error && error.message === 'Unauthorized')
      return { refusal: 'UNAUTHORIZED' };
    logger.error('Authorizer failed', { requestId: request.requestId, error });
    return { refusal: 'AUTHORIZER_FAILURE' };
  }
  const parsed = v.safeParse(AuthorizerResultSchema, output);
  if (parsed.success) return { result: parsed.output };
  logger.error('Malformed authorizer result', { requestId: request.requestId, output });
  return { refusal: 'AUTHORIZER_CONFIGURATION_ERROR' };
}

/** The operation's result, or `undefined` when its handler threw or answered malformed output. */
async function invokeOperation(
  route: RouteDefinition,
  request: ProxyRequest,
): Promise<ProxyResult | undefined> {
  try {
    const handler = await loadHandler(route.entry);
    const output = await invoke(handler, createProxyEvent(request), route.entry, request);
    const parsed = v.safeParse(ProxyResultSchema, output);
    if (parsed.success) return parsed.output;
    logger.error('Malformed Lambda proxy response', { requestId: request.requestId, output });
  } catch (error) {
    logger.error('Lambda function failed', { requestId: request.requestId, error });
  }
  return undefined;
}

type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

const handlers = new Map<string, Promise<LambdaHandler>>();

/** The `handler` export of a function entry (relative to the repository), imported once. */
function loadHandler(entry: string): Promise<LambdaHandler> {
  let handler = handlers.get(entry);
  if (!handler) {
    const url = pathToFileURL(resolve(REPO_ROOT, entry)).href;
    handler = import(url).then((module: { handler: LambdaHandler }) => module.handler);
    handlers.set(entry, handler);
  }
  return handler;
}

/** The Lambda `InvokeStore` of this process, created by {@link startGateway}. */
let invokeStore: InvokeStoreBase | undefined;

/**
 * The process's InvokeStore, checked to keep one context per invocation across awaits.
 *
 * Logs a warning when an AWS SDK call created a sequential one before this module was loaded.
 */
async function concurrentInvokeStore(): Promise<InvokeStoreBase> {
  const store = await InvokeStore.getInstanceAsync(true);
  const probe = Symbol('probe');
  const seen = await Promise.all(
    [1, 2].map((n) =>
      store.run({ [probe]: n }, async () => {
        await Promise.resolve();
        return store.get(probe);
      }),
    ),
  );
  if (seen[0] !== 1) {
    // An in-process gateway after earlier SDK calls (tests): it works, its log lines may mix ids.
    logger.warn(
      `The Lambda InvokeStore of this process is sequential: concurrent invocations may log each other's request ids. Set ${MAX_CONCURRENCY_ENV} before the first AWS SDK call.`,
    );
  }
  return store;
}

/**
 * Runs one invocation of a function in its own InvokeStore context (the request id is the
 * invocation's), with its Lambda context.
 */
function invoke(
  handler: LambdaHandler,
  event: unknown,
  entry: string,
  request: ProxyRequest,
): Promise<unknown> {
  const context = createLambdaContext(`petstore-${basename(entry, '.ts')}`, request.requestId);
  const run = () => handler(event, context);
  if (!invokeStore) return run();
  return invokeStore.run(
    { [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: context.awsRequestId },
    run,
  );
}

function sendGatewayResponse(response: ServerResponse, type: GatewayResponseType): void {
  const { body, headers } = gatewayResponse(type);
  sendError(response, body, headers);
}

function sendError(
  response: ServerResponse,
  body: ErrorBody,
  headers: Readonly<Record<string, string>>,
): void {
  const payload = JSON.stringify(body);
  response.writeHead(body.status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
  });
  response.end(payload);
}

/**
 * Copies a proxy result to the response. `multiValueHeaders` win over `headers` of the same name,
 * and the Content-Type defaults to JSON, as API Gateway does.
 */
function sendProxyResult(response: ServerResponse, result: ProxyResult): void {
  response.setHeader('Content-Type', 'application/json');
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    response.setHeader(name, String(value));
  }
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    response.setHeader(name, values.map(String));
  }
  response.writeHead(result.statusCode);
  response.end(
    result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : undefined,
  );
}
