/**
 * The events and Lambda context that API Gateway and Lambda hand to the functions: REST API (v1)
 * proxy events, REQUEST authorizer events (AWS's developer guide), for the local gateway and tests.
 */
import { randomUUID } from 'node:crypto';
import type {
  APIGatewayEventRequestContextWithAuthorizer,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import { BINARY_MEDIA_TYPES, FUNCTION_TIMEOUT_SECONDS } from '../routes.ts';

/** Account, region and API id that local ARNs and request contexts use. */
export const LOCAL_ACCOUNT_ID = '000000000000';
const LOCAL_REGION = 'local';
const LOCAL_API_ID = 'local';

/** One HTTP request as the gateway matched it to a route. */
export interface ProxyRequest {
  /** HTTP method, upper case. */
  method: string;
  /** The route's resource path, e.g. `/pets/{petId}`. */
  resource: string;
  /** The request path without the stage, e.g. `/pets/7`. */
  path: string;
  /** URL-decoded path parameters; `null` or absent when the route has none. */
  pathParameters?: Record<string, string> | null;
  query?: URLSearchParams;
  /** Request headers as received: names in any case, repeated headers as arrays. */
  headers?: Record<string, string | string[] | undefined>;
  /**
   * Request body: bytes as received, passed base64-encoded when their Content-Type is one of the
   * API's binary media types (`*\/*`: every type), as API Gateway does; text as is. Empty or
   * absent becomes `null`.
   */
  body?: Buffer | string | null;
  /** The authorizer's context and `principalId`; values reach the function as strings. */
  authorizer?: Record<string, string | number | boolean> | null;
  /** @default - a fresh UUID */
  requestId?: string;
  /** @default '127.0.0.1' */
  sourceIp?: string;
  /** The API's stage, the first segment of `requestContext.path`. @default API_STAGE_NAME (`v1`) */
  stage?: string;
  /**
   * The signer of a request to an AWS_IAM method, whose identity API Gateway puts in
   * `requestContext.identity`. @default - none: the identity's IAM fields are null
   */
  caller?: IamCaller;
}

/** The IAM principal that signed a request, as API Gateway's AWS_IAM authorization finds it. */
export interface IamCaller {
  /** The access key id it signed with. */
  readonly accessKey: string;
  /** Its principal ARN, e.g. `arn:aws:iam::000000000000:user/petstore-local-operator`. */
  readonly userArn: string;
  /** Its unique id (`identity.caller` and `identity.user`), e.g. `AIDA…` for an IAM user. */
  readonly userId: string;
}

/**
 * A REST API (v1) proxy event, as a Lambda proxy integration receives it.
 *
 * `headers` and `queryStringParameters` hold the last value of each name, `multiValueHeaders` and
 * `multiValueQueryStringParameters` all of them; query and path parameters are `null` when there
 * are none, `stageVariables` always (the stage has none). `requestContext.path` carries the stage (`/v1/pets/7`),
 * `path` does not (`/pets/7`). The authorizer context is stringified, as API Gateway does.
 */
export function createProxyEvent(input: ProxyRequest): APIGatewayProxyEvent {
  const multiValueHeaders = headerLists(input.headers ?? {});
  const headers = lastValues(multiValueHeaders) ?? {};
  const multiValueQuery = queryLists(input.query ?? new URLSearchParams());
  const authorizer = input.authorizer
    ? Object.fromEntries(Object.entries(input.authorizer).map(([k, v]) => [k, String(v)]))
    : undefined;
  return {
    resource: input.resource,
    path: input.path,
    httpMethod: input.method,
    headers,
    multiValueHeaders,
    queryStringParameters: lastValues(multiValueQuery),
    multiValueQueryStringParameters: isEmpty(multiValueQuery) ? null : multiValueQuery,
    pathParameters:
      input.pathParameters && !isEmpty(input.pathParameters) ? input.pathParameters : null,
    stageVariables: null,
    requestContext: requestContext(input, headers, authorizer),
    ...eventBody(input.body, headers),
  };
}

/** The body as API Gateway passes it: binary media types base64-encoded, others as text. */
function eventBody(
  body: ProxyRequest['body'],
  headers: Record<string, string>,
): Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'> {
  if (!body || body.length === 0) return { body: null, isBase64Encoded: false };
  if (typeof body === 'string') return { body, isBase64Encoded: false };
  const contentType = Object.entries(headers).find(
    ([name]) => name.toLowerCase() === 'content-type',
  );
  return contentType && isBinaryMediaType(contentType[1])
    ? { body: body.toString('base64'), isBase64Encoded: true }
    : { body: body.toString('utf8'), isBase64Encoded: false };
}

/** Whether a Content-Type matches one of {@link BINARY_MEDIA_TYPES} (`*\/*` or `type/*` or exact). */
function isBinaryMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const [type] = mediaType.split('/');
  return BINARY_MEDIA_TYPES.some(
    (binary) => binary === '*/*' || binary === mediaType || binary === `${type}/*`,
  );
}

/**
 * A REQUEST authorizer event for the request: the proxy event's headers, parameters and request
 * context (without authorizer and body), plus `type: 'REQUEST'` and the method ARN.
 */
export function createAuthorizerEvent(
  input: Omit<ProxyRequest, 'authorizer' | 'body'>,
): APIGatewayRequestAuthorizerEvent {
  const {
    body: _body,
    isBase64Encoded: _base64,
    requestContext,
    ...event
  } = createProxyEvent(input);
  return {
    type: 'REQUEST',
    methodArn: methodArn(input.method, input.path),
    ...event,
    requestContext: { ...requestContext, authorizer: undefined },
  };
}

/**
 * The execute-api ARN of a call, as API Gateway hands it to authorizers and matches it against
 * their policies: `arn:aws:execute-api:local:000000000000:local/v1/GET/pets/7`.
 *
 * @param path The request path without the stage.
 */
export function methodArn(method: string, path: string): string {
  return `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${LOCAL_API_ID}/${API_STAGE_NAME}/${method}${path}`;
}

/**
 * A Lambda context for one invocation of a function.
 *
 * `getRemainingTimeInMillis()` counts down from the function's deployed timeout,
 * `timeoutSeconds`. The deprecated callback methods (`done`, `fail`, `succeed`) throw: the
 * functions return promises.
 * @param timeoutSeconds @default FUNCTION_TIMEOUT_SECONDS
 */
export function createLambdaContext(
  functionName: string,
  requestId: string = randomUUID(),
  timeoutSeconds = FUNCTION_TIMEOUT_SECONDS,
): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const noCallbacks = () => {
    throw new Error('The local stack supports async handlers only');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${requestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: noCallbacks,
    fail: noCallbacks,
    succeed: noCallbacks,
  };
}

function requestContext(
  input: ProxyRequest,
  headers: Record<string, string>,
  authorizer: Record<string, string> | undefined,
): APIGatewayEventRequestContextWithAuthorizer<Record<string, string> | undefined> {
  const now = new Date();
  const userAgent = Object.entries(headers).find(([name]) => name.toLowerCase() === 'user-agent');
  const stage = input.stage ?? API_STAGE_NAME;
  const { caller } = input;
  return {
    accountId: LOCAL_ACCOUNT_ID,
    apiId: LOCAL_API_ID,
    authorizer,
    protocol: 'HTTP/1.1',
    httpMethod: input.method,
    identity: {
      accessKey: caller?.accessKey ?? null,
      accountId: caller ? LOCAL_ACCOUNT_ID : null,
      apiKey: null,
      apiKeyId: null,
      caller: caller?.userId ?? null,
      clientCert: null,
      cognitoAuthenticationProvider: null,
      cognitoAuthenticationType: null,
      cognitoIdentityId: null,
      cognitoIdentityPoolId: null,
      principalOrgId: null,
      sourceIp: input.sourceIp ?? '127.0.0.1',
      user: caller?.userId ?? null,
      userAgent: userAgent?.[1] ?? null,
      userArn: caller?.userArn ?? null,
    },
    path: `/${stage}${input.path}`,
    stage,
    requestId: input.requestId ?? randomUUID(),
    requestTime: now.toUTCString(),
    requestTimeEpoch: now.getTime(),
    resourceId: LOCAL_API_ID,
    resourcePath: input.resource,
  };
}

// Null-prototype maps: a client's `constructor` or `__proto__` is a name like any other.
function headerLists(headers: Record<string, string | string[] | undefined>) {
  const lists: Record<string, string[]> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) lists[name] = [...(lists[name] ?? []), ...[value].flat()];
  }
  return lists;
}

function queryLists(query: URLSearchParams) {
  const lists: Record<string, string[]> = Object.create(null);
  for (const [name, value] of query) lists[name] = [...(lists[name] ?? []), value];
  return lists;
}

/** The last value of each name, or `null` when there are none (API Gateway keeps the last). */
function lastValues(lists: Record<string, string[]>): Record<string, string> | null {
  if (isEmpty(lists)) return null;
  return Object.fromEntries(
    Object.entries(lists).map(([name, values]) => [name, values.at(-1) ?? '']),
  );
}

function isEmpty(record: object): boolean {
  return Object.keys(record).length === 0;
}
