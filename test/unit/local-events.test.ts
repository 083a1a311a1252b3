import { describe, expect, it, vi } from 'vitest';
import {
  createAuthorizerEvent,
  createLambdaContext,
  createProxyEvent,
  methodArn,
} from '../../infra/local/events.ts';
import { INTEGRATION_TIMEOUT_MS } from '../../infra/local/invocation.ts';
import { FUNCTION_TIMEOUT_SECONDS } from '../../infra/routes.ts';
import { invocationBudgetMs } from '../../shared/deadline.ts';
import { DYNAMODB_CALL_BOUNDS } from '../../shared/dynamodb/clients.ts';

const getPet = { method: 'GET', resource: '/pets/{petId}', path: '/pets/7' };

describe('createProxyEvent', () => {
  it('keeps the last value of repeated headers in headers and all of them in multiValueHeaders', () => {
    const event = createProxyEvent({
      ...getPet,
      headers: {
        Accept: ['text/plain', 'application/json'],
        'User-Agent': 'curl/8',
        Skipped: undefined,
      },
    });

    expect(event.headers).toEqual({ Accept: 'application/json', 'User-Agent': 'curl/8' });
    expect(event.multiValueHeaders).toEqual({
      Accept: ['text/plain', 'application/json'],
      'User-Agent': ['curl/8'],
    });
    expect(event.requestContext.identity.userAgent).toBe('curl/8');
  });

  it('keeps the last value of repeated query parameters, and all of them in the multi-value map', () => {
    const event = createProxyEvent({
      ...getPet,
      query: new URLSearchParams('status=sold&limit=5&status=pending'),
    });

    expect(event.queryStringParameters).toEqual({ status: 'pending', limit: '5' });
    expect(event.multiValueQueryStringParameters).toEqual({
      status: ['sold', 'pending'],
      limit: ['5'],
    });
  });

  it('gives null parameters, stage variables and body when the request has none', () => {
    const event = createProxyEvent({ method: 'GET', resource: '/pets', path: '/pets', body: '' });

    expect(event).toMatchObject({
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
    });
  });

  it('passes a body of bytes base64-encoded, as API Gateway does for the binary media type */*', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const event = createProxyEvent({
      method: 'POST',
      resource: '/pets',
      path: '/pets',
      headers: { 'Content-Type': 'text/plain' },
      body: bytes,
    });

    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body ?? '', 'base64')).toEqual(bytes);
  });

  it('passes bytes sent without a Content-Type as text', () => {
    const event = createProxyEvent({
      method: 'POST',
      resource: '/pets',
      path: '/pets',
      body: Buffer.from('{"a":1}'),
    });

    expect(event).toMatchObject({ body: '{"a":1}', isBase64Encoded: false });
  });

  it('carries the route, the path with and without the stage, and the request id', () => {
    const event = createProxyEvent({
      ...getPet,
      pathParameters: { petId: '7' },
      requestId: 'req-1',
    });

    expect(event).toMatchObject({
      resource: '/pets/{petId}',
      path: '/pets/7',
      httpMethod: 'GET',
      pathParameters: { petId: '7' },
    });
    expect(event.requestContext).toMatchObject({
      stage: 'v1',
      path: '/v1/pets/7',
      resourcePath: '/pets/{petId}',
      httpMethod: 'GET',
      requestId: 'req-1',
      identity: { sourceIp: '127.0.0.1' },
    });
    expect(event.requestContext.requestTimeEpoch).toBeGreaterThan(0);
  });

  it('passes the authorizer context with every value as a string, as API Gateway does', () => {
    const event = createProxyEvent({
      ...getPet,
      authorizer: { principalId: 'key_1', plan: 'free', perMinute: 60, trusted: true },
    });

    expect(event.requestContext.authorizer).toEqual({
      principalId: 'key_1',
      plan: 'free',
      perMinute: '60',
      trusted: 'true',
    });
  });
});

describe('createAuthorizerEvent', () => {
  it('makes a REQUEST event with the method ARN of the actual path and no body', () => {
    const event = createAuthorizerEvent({
      ...getPet,
      pathParameters: { petId: '7' },
      headers: { Authorization: 'Bearer tok_x' },
    });

    expect(event).toMatchObject({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:local:000000000000:local/v1/GET/pets/7',
      resource: '/pets/{petId}',
      path: '/pets/7',
      httpMethod: 'GET',
      headers: { Authorization: 'Bearer tok_x' },
      pathParameters: { petId: '7' },
    });
    expect(event).not.toHaveProperty('body');
    expect(event.requestContext.authorizer).toBeUndefined();
  });
});

describe('methodArn', () => {
  it('names region, account, API, stage, method and path', () => {
    expect(methodArn('POST', '/pets')).toBe(
      'arn:aws:execute-api:local:000000000000:local/v1/POST/pets',
    );
  });
});

describe('createLambdaContext', () => {
  it('carries the function name and request id, and counts the remaining time down from the deployed timeout', () => {
    const context = createLambdaContext('petstore-list-pets', 'req-2');

    expect(context).toMatchObject({
      functionName: 'petstore-list-pets',
      awsRequestId: 'req-2',
      functionVersion: '$LATEST',
      invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:petstore-list-pets',
      logGroupName: '/aws/lambda/petstore-list-pets',
    });
    expect(context.getRemainingTimeInMillis()).toBeGreaterThan(
      FUNCTION_TIMEOUT_SECONDS * 1000 - 1_000,
    );
    expect(context.getRemainingTimeInMillis()).toBeLessThanOrEqual(FUNCTION_TIMEOUT_SECONDS * 1000);
  });

  it("counts down from a timeout that ends within API Gateway's integration timeout, with room for a store call's attempt and the answer's margin", () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const timeoutMs = createLambdaContext('f').getRemainingTimeInMillis();
    vi.useRealTimers();

    // The function answers (its 503 at worst) before API Gateway gives up with 504.
    expect(timeoutMs).toBeLessThan(INTEGRATION_TIMEOUT_MS);
    expect(invocationBudgetMs({ getRemainingTimeInMillis: () => timeoutMs })).toBeGreaterThan(
      DYNAMODB_CALL_BOUNDS.requestTimeoutMs,
    );
  });

  it('gives each invocation a fresh request id by default', () => {
    expect(createLambdaContext('f').awsRequestId).not.toBe(createLambdaContext('f').awsRequestId);
  });
});
