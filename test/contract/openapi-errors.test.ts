/**
 * docs/openapi.yaml against the code on error answers: every error response's codes and Error
 * examples, every answer API Gateway can make for an operation with the gateway responses' bodies
 * and headers, every catalogue code documented somewhere, the body size limit, and the 503 of a
 * store that failed or did not answer (its fixed Retry-After, the function timeout and the rate
 * limiter's deadline), checked against a real answer of httpHandler.
 */
import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '../../infra/gateway-responses.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { FUNCTION_TIMEOUT_SECONDS, ROUTES } from '../../infra/routes.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { ERROR_CATALOGUE, type ErrorBody, type ErrorCode } from '../../shared/http/http-errors.ts';
import { MAX_BODY_BYTES } from '../../shared/http/json-body.ts';
import { RATE_LIMIT_HEADERS } from '../../shared/http/rate-limit-headers.ts';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../shared/http/unavailable.ts';
import { readSettings } from '../../shared/settings.ts';
import { unlessUnavailable } from '../../shared/store-errors.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import { expectConformingResponse } from '../support/openapi-conformance.ts';
import {
  at,
  description,
  document,
  headersOf,
  type Node,
  operation,
  operationResponses,
  prose,
  ROUTE_LEVEL_CODES,
  resolve,
  responses,
} from '../support/openapi-document.ts';

/** Codes that API Gateway answers for every operation before (or instead of) its function. */
const GATEWAY_CODES_OF_EVERY_OPERATION: readonly ErrorCode[] = [
  'unauthorized',
  'forbidden',
  'rate_limited',
  'quota_exceeded',
  'internal_error',
  'bad_gateway',
  'service_unavailable',
  'gateway_timeout',
];

describe('docs/openapi.yaml', () => {
  describe('error responses', () => {
    const errorResponses = operationResponses().filter(({ status }) => Number(status) >= 400);

    it.each(errorResponses.map((entry) => [entry.label, entry] as const))(
      'documents %s with codes of its status and Error examples',
      (_, { status, response }) => {
        const codes = response['x-error-codes'] as ErrorCode[];
        expect(codes.length).toBeGreaterThan(0);
        for (const code of codes) expect(ERROR_CATALOGUE[code].status).toBe(Number(status));
        const media = at(response, 'content', 'application/json');
        expect(media.schema).toEqual({ $ref: '#/components/schemas/Error' });
        const examples = media.example
          ? [media.example]
          : Object.values(media.examples as Node).map((example) => resolve(example).value);
        expect(examples.length).toBeGreaterThan(0);
        for (const example of examples as Node[]) {
          expect(Object.keys(example).sort()).toEqual(['code', 'message', 'status']);
          expect(codes).toContain(example.code);
          expect(example.status).toBe(Number(status));
        }
      },
    );

    it.each(ROUTES.map((route) => route.operationId))(
      'lists in %s every answer API Gateway can make for it',
      (operationId) => {
        const documented = responses(operationId).flatMap(
          ([, response]) => (response['x-error-codes'] as ErrorCode[] | undefined) ?? [],
        );
        expect(documented).toEqual(expect.arrayContaining([...GATEWAY_CODES_OF_EVERY_OPERATION]));
      },
    );

    it('documents every catalogue code on an operation or as a route-level answer', () => {
      const documented = new Set(
        errorResponses.flatMap(({ response }) => response['x-error-codes'] as ErrorCode[]),
      );
      for (const code of ROUTE_LEVEL_CODES) documented.add(code);
      expect([...documented].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
    });

    it("gives the answers API Gateway makes the gateway responses' bodies and headers", () => {
      const gatewayBodies = GATEWAY_RESPONSES.map((response) => response.body);
      for (const name of [
        'Unauthorized',
        'Forbidden',
        'CreatePetForbidden',
        'TooManyRequests',
        'InternalError',
        'BadGateway',
        'ServiceUnavailable',
        'GatewayTimeout',
      ]) {
        const component = at(document, 'components', 'responses', name);
        const media = at(component, 'content', 'application/json');
        const examples = media.example
          ? [{ value: media.example }]
          : Object.values(media.examples as Node).map(resolve);
        // The examples marked as the function's are checked against its answers below.
        for (const example of examples.filter((e) => e['x-made-by'] !== 'function')) {
          expect(gatewayBodies).toContainEqual(example.value);
        }
        for (const example of examples.filter((e) => e['x-made-by'] === 'function')) {
          const { code, status } = example.value as ErrorBody;
          expect(ERROR_CATALOGUE[code]?.status).toBe(status);
        }
        const codes = component['x-error-codes'] as ErrorCode[];
        const made = GATEWAY_RESPONSES.filter((r) => codes.includes(r.body.code));
        for (const gateway of made) {
          for (const [header, value] of Object.entries(gateway.headers)) {
            const declared = at(component, 'headers', header);
            // Required when every gateway response of the answer carries it; else optional.
            const always = made.every((r) => header in r.headers);
            expect(declared.required === true, `${name} ${header}`).toBe(always);
            const schema = at(declared, 'schema');
            if ('const' in schema) expect(String(schema.const)).toBe(value);
          }
        }
      }
    });

    it('states the body size limit of the code', () => {
      expect(at(document, 'components', 'responses', 'PayloadTooLarge').description).toContain(
        `${MAX_BODY_BYTES} bytes`,
      );
    });
  });

  describe('faults', () => {
    const serviceUnavailable = () => at(document, 'components', 'responses', 'ServiceUnavailable');

    it.each(ROUTES.map((route) => route.operationId))(
      'documents 503 service_unavailable on %s',
      (operationId) => {
        expect(operation(operationId).responses).toHaveProperty('503', {
          $ref: '#/components/responses/ServiceUnavailable',
        });
      },
    );

    it("gives every 503 the code's fixed Retry-After, also in its messages", () => {
      const retryAfter = headersOf(serviceUnavailable())[RATE_LIMIT_HEADERS.retryAfter];
      expect(retryAfter).toMatchObject({
        required: true,
        schema: { type: 'integer', const: SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS },
      });
      const media = at(serviceUnavailable(), 'content', 'application/json');
      const functionExamples = Object.values(media.examples as Node)
        .map(resolve)
        .filter((example) => example['x-made-by'] === 'function');
      expect(functionExamples.length).toBeGreaterThan(0);
      for (const example of functionExamples) {
        expect((example.value as ErrorBody).message).toMatch(
          new RegExp(` Retry after ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds\\.$`),
        );
      }
      expect(description()).toContain(
        `\`${RATE_LIMIT_HEADERS.retryAfter}: ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS}\``,
      );
    });

    it("states the function timeout and the rate limiter's deadline of the code", () => {
      expect(description()).toContain(`function's timeout of ${FUNCTION_TIMEOUT_SECONDS} s`);
      expect(prose(serviceUnavailable())).toContain(
        `function's timeout of ${FUNCTION_TIMEOUT_SECONDS} s`,
      );
      expect(description()).toContain(
        `does not answer within ${readSettings({}).RATE_LIMIT_DEADLINE_MS / 1000} s`,
      );
    });

    it("accepts a function's 503 for a store that timed out, while the rate limiter fails open", async () => {
      const timedOut = Object.assign(new Error('The operation was aborted'), {
        name: 'TimeoutError',
      });
      const handler = httpHandler({
        // As a store adapter's call fails: its error, classified by unlessUnavailable.
        operation: () => unlessUnavailable(() => Promise.reject(timedOut)),
        container: {
          settings: readSettings(),
          rateLimiter: {
            consume: async () => {
              throw timedOut;
            },
          },
        },
      });
      const event = authorizedEvent({ method: 'GET', resource: '/pets', path: '/pets' });
      const result = await handler(event, createLambdaContext('openapi-faults'));
      const body = JSON.parse(result.body) as ErrorBody;
      expect(body.code).toBe('service_unavailable');
      const media = at(serviceUnavailable(), 'content', 'application/json');
      expect(Object.values(media.examples as Node).map((e) => resolve(e).value)).toContainEqual(
        body,
      );
      const response = new Response(null, {
        status: result.statusCode,
        headers: Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
      });
      expectConformingResponse({ method: 'GET', path: '/pets' }, response, body);
    });
  });
});
