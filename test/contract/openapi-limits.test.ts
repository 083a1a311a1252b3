/**
 * docs/openapi.yaml against the code on limits: each plan's numbers, the authorizer cache time,
 * the default ban and how to change and lift it, the edge backstop and API Gateway's fixed
 * Retry-After, and exactly which rate-limit headers each answer carries (required or not, typed
 * as integers), with API Gateway's 429s accepted by the document on every operation.
 */
import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '../../infra/gateway-responses.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../infra/routes.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../shared/http/http-errors.ts';
import { IDEMPOTENT_REPLAYED_HEADER } from '../../shared/http/idempotency-key.ts';
import { RATE_LIMIT_HEADERS, uncountedHeaders } from '../../shared/http/rate-limit-headers.ts';
import { BACKSTOP_FACTOR, ENTERPRISE_PLAN, PLANS } from '../../shared/plans.ts';
import { DEFAULT_BAN_POLICY } from '../../shared/rate-limit/rate-limiter.ts';
import { expectConformingResponse } from '../support/openapi-conformance.ts';
import {
  at,
  COUNT_HEADER_NAMES,
  description,
  document,
  documentedOperations,
  headersOf,
  operationResponses,
  prose,
  RATE_LIMIT_HEADER_NAMES,
  ROUTE_LEVEL_CODES,
} from '../support/openapi-document.ts';

/** The count headers a function sends even for a request it admitted uncounted (fail open). */
const UNCOUNTED_HEADER_NAMES = Object.keys(uncountedHeaders(PLANS.free, 0));

/**
 * Codes that only an operation's function answers: no gateway response and no route-level answer
 * uses them. A response with only these codes is always made by the function.
 */
const FUNCTION_ONLY_CODES = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter(
  (code) =>
    !ROUTE_LEVEL_CODES.includes(code) &&
    !GATEWAY_RESPONSES.some((response) => response.body.code === code),
);

/** Codes that no function answers: API Gateway makes these answers before or instead of one. */
const GATEWAY_ONLY_CODES: readonly ErrorCode[] = [
  'unauthorized',
  'forbidden',
  'insufficient_scope',
  'bad_request',
  'quota_exceeded',
  'bad_gateway',
  'gateway_timeout',
];

/** API Gateway's usage-plan refusals, with their static headers. */
const GATEWAY_429S = GATEWAY_RESPONSES.filter((response) => response.body.status === 429);

describe('docs/openapi.yaml', () => {
  describe('limits', () => {
    it('states the numbers of every plan', () => {
      const text = at(document, 'info').description as string;
      for (const plan of Object.values(PLANS)) {
        expect(text).toContain(
          `${plan.name}: ${plan.perMinute.toLocaleString('en-US')}/min and ${plan.perDay.toLocaleString('en-US')}/day`,
        );
      }
      expect(text).toContain(`${ENTERPRISE_PLAN.name}: custom numbers per key`);
    });

    it('states that a plan or scope change, a revocation, an expiry or a roll takes effect within the authorizer cache time', () => {
      expect(description()).toContain(
        `a plan change, a scope change, a revocation, an expiry or the end of a roll's grace takes effect within ${AUTHORIZER_CACHE_TTL_SECONDS} s`,
      );
    });

    it('states the default ban, and that the operator can lift it', () => {
      const { threshold, durationSeconds } = DEFAULT_BAN_POLICY;
      const tooManyRequests = prose(at(document, 'components', 'responses', 'TooManyRequests'));
      for (const text of [description(), tooManyRequests]) {
        expect(text).toContain(`more than ${threshold} refused`);
        expect(text).toContain(`banned for ${durationSeconds / 60} minutes`);
      }
      expect(description()).toContain("the API's operator can lift a ban at once");
    });

    it("states the edge backstop's factor and API Gateway's fixed Retry-After", () => {
      expect(description()).toContain(`${BACKSTOP_FACTOR} × the per-minute limit`);
      expect(description()).toContain(`${BACKSTOP_FACTOR} × the per-day limit`);
      const texts = [
        description(),
        prose(at(document, 'components', 'headers', RATE_LIMIT_HEADERS.retryAfter)),
        prose(at(document, 'components', 'responses', 'TooManyRequests')),
      ];
      for (const { headers } of GATEWAY_429S) {
        for (const text of texts) {
          expect(text).toContain(
            `\`${RATE_LIMIT_HEADERS.retryAfter}: ${headers[RATE_LIMIT_HEADERS.retryAfter]}\``,
          );
        }
      }
    });

    it('names exactly the rate-limit headers the code sends', () => {
      const otherHeaders = [
        'Location',
        IDEMPOTENT_REPLAYED_HEADER,
        'WWW-Authenticate',
        'Deprecation',
        'Sunset',
        'Link',
      ];
      const documented = new Set(
        operationResponses().flatMap(({ response }) => Object.keys(headersOf(response))),
      );
      expect([...documented].filter((name) => !otherHeaders.includes(name)).sort()).toEqual(
        [...RATE_LIMIT_HEADER_NAMES].sort(),
      );
    });

    it('declares the count headers on every 2xx and on every answer only a function makes', () => {
      const functionAnswers = operationResponses().filter(
        ({ status, response }) =>
          status.startsWith('2') ||
          ((response['x-error-codes'] as ErrorCode[] | undefined) ?? []).every((code) =>
            FUNCTION_ONLY_CODES.includes(code),
          ),
      );
      expect(functionAnswers.map(({ label }) => label)).toContain('getPet 404');
      for (const { label, response } of functionAnswers) {
        const headers = headersOf(response);
        for (const name of COUNT_HEADER_NAMES) {
          expect(headers[name], `${label} ${name}`).toBeDefined();
          // Only the headers a request admitted uncounted still gets are always there.
          expect(headers[name]?.required === true, `${label} ${name} required`).toBe(
            UNCOUNTED_HEADER_NAMES.includes(name),
          );
        }
      }
    });

    it('types the counts and Retry-After as integers', () => {
      const integers: readonly string[] = [
        RATE_LIMIT_HEADERS.limit,
        RATE_LIMIT_HEADERS.remaining,
        RATE_LIMIT_HEADERS.reset,
        RATE_LIMIT_HEADERS.retryAfter,
      ];
      for (const { label, response } of operationResponses()) {
        for (const [name, header] of Object.entries(headersOf(response))) {
          if (integers.includes(name)) {
            expect(at(header, 'schema').type, `${label} ${name}`).toBe('integer');
          }
        }
      }
    });

    it('requires no rate-limit header that an API Gateway answer with the same code lacks', () => {
      for (const { label, status, response } of operationResponses()) {
        const codes = (response['x-error-codes'] as ErrorCode[] | undefined) ?? [];
        const gatewayAnswers = GATEWAY_RESPONSES.filter(
          ({ body }) => codes.includes(body.code) && body.status === Number(status),
        );
        for (const [name, header] of Object.entries(headersOf(response))) {
          if (!RATE_LIMIT_HEADER_NAMES.includes(name) || header.required !== true) continue;
          for (const gateway of gatewayAnswers) {
            expect(gateway.headers, `${label} ${name} (${gateway.type})`).toHaveProperty(name);
          }
        }
      }
    });

    it('declares no count header on the answers only API Gateway makes', () => {
      const gatewayAnswers = operationResponses().filter(({ response }) => {
        const codes = (response['x-error-codes'] as ErrorCode[] | undefined) ?? [];
        return codes.length > 0 && codes.every((code) => GATEWAY_ONLY_CODES.includes(code));
      });
      expect(gatewayAnswers.map(({ status }) => status)).toEqual(
        expect.arrayContaining(['401', '403', '502', '504']),
      );
      for (const { label, response } of gatewayAnswers) {
        for (const name of COUNT_HEADER_NAMES) {
          expect(headersOf(response), label).not.toHaveProperty(name);
        }
      }
    });

    it('lists every 429 code in TooManyRequests, with Retry-After and no requests left', () => {
      const tooManyRequests = at(document, 'components', 'responses', 'TooManyRequests');
      const codes429 = Object.entries(ERROR_CATALOGUE)
        .filter(([, { status }]) => status === 429)
        .map(([code]) => code);
      expect([...(tooManyRequests['x-error-codes'] as string[])].sort()).toEqual(codes429.sort());
      expect(codes429).toContain('api_key_temporarily_banned');
      const headers = headersOf(tooManyRequests);
      expect(headers[RATE_LIMIT_HEADERS.retryAfter]).toMatchObject({ required: true });
      expect(at(headers[RATE_LIMIT_HEADERS.retryAfter], 'schema')).toMatchObject({
        type: 'integer',
        minimum: 1,
      });
      expect(headers[RATE_LIMIT_HEADERS.remaining]).toMatchObject({
        required: true,
        schema: { type: 'integer', const: 0 },
      });
    });

    it.each(
      documentedOperations().flatMap(({ method, path, operation }) =>
        GATEWAY_429S.map(
          (gateway) =>
            [gateway.type, String(operation.operationId), { method, path, gateway }] as const,
        ),
      ),
    )("accepts API Gateway's %s answer, static headers included, on %s", (_, __, entry) => {
      const { method, path, gateway } = entry;
      const response = new Response(JSON.stringify(gateway.body), {
        status: gateway.body.status,
        headers: { ...gateway.headers, 'Content-Type': 'application/json' },
      });
      // Throws, naming the operation and what does not conform, unless the document allows it.
      expectConformingResponse({ method, path }, response, gateway.body);
    });
  });
});
