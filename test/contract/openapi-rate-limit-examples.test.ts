/**
 * docs/openapi.yaml against the real rate limiter of the functions (on this file's DynamoDB Local
 * counters table): a fresh Free key's answers, from its first request to its first banned one,
 * made at the instant of the document's examples, give the rate-limit header examples and the
 * TooManyRequests bodies, and conform to the document; answers with a malformed header do not.
 */
import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLambdaContext } from '../../infra/local/events.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { COUNTERS_TABLE } from '../../shared/dynamodb/tables.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import type { ErrorBody, ErrorCode } from '../../shared/http/http-errors.ts';
import { nextPageLink } from '../../shared/http/page-link.ts';
import { RATE_LIMIT_HEADERS } from '../../shared/http/rate-limit-headers.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import { PLANS } from '../../shared/plans.ts';
import { DEFAULT_BAN_POLICY } from '../../shared/rate-limit/rate-limiter.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import { TOMORROW, tomorrowAt } from '../support/clock.ts';
import { expectConformingResponse } from '../support/openapi-conformance.ts';
import {
  at,
  COUNT_HEADER_NAMES,
  document,
  type Node,
  resolve,
} from '../support/openapi-document.ts';

/**
 * The instant of the document's rate-limit examples: 2026-11-21T10:30:15Z, 45 s before its
 * minute window resets and 48 585 s before its day window does.
 */
const EXAMPLES_AT = Date.parse('2026-11-21T10:30:15Z');

/**
 * Where the real limiter runs to make the answers compared with those examples: their time of day
 * on {@link TOMORROW}, because counter items of a past date would expire mid-test.
 */
const LIMITER_AT = tomorrowAt(new Date(EXAMPLES_AT).toISOString().slice(11, 23));

/**
 * An answer made at {@link LIMITER_AT} as it reads at {@link EXAMPLES_AT}: the reset instant moved
 * back by the whole days between them and the date in the body (a ban's end) replaced. Nothing
 * else in an answer depends on the date, so any other difference stays a failure.
 */
function atExamplesInstant(answer: APIGatewayProxyResult): APIGatewayProxyResult {
  const shiftSeconds = (LIMITER_AT - EXAMPLES_AT) / 1000;
  const reset = answer.headers?.[RATE_LIMIT_HEADERS.reset];
  return {
    ...answer,
    headers: {
      ...answer.headers,
      ...(reset === undefined
        ? {}
        : { [RATE_LIMIT_HEADERS.reset]: String(Number(reset) - shiftSeconds) }),
    },
    body: answer.body.replaceAll(TOMORROW, new Date(EXAMPLES_AT).toISOString().slice(0, 10)),
  };
}

describe('docs/openapi.yaml', () => {
  describe('limits', () => {
    describe("the functions' rate limiter at the examples' instant", () => {
      /**
       * A fresh Free key's answers at EXAMPLES_AT (made at LIMITER_AT), from its first request to
       * its first banned one.
       */
      const answers: APIGatewayProxyResult[] = [];
      const client = createDocumentClient();
      afterAll(() => client.destroy());

      beforeAll(async () => {
        const settings = readSettings();
        const handler = httpHandler({
          operation: async () => jsonResponse(200, []),
          container: {
            settings,
            rateLimiter: new DynamoDBRateLimiter(
              client,
              requiredSetting(settings, COUNTERS_TABLE.envVar),
            ),
            now: () => LIMITER_AT,
          },
        });
        const key = {
          keyId: `key_${randomBytes(8).toString('hex')}`,
          plan: 'free',
          ...PLANS.free,
        };
        const event = authorizedEvent({ method: 'GET', resource: '/pets', path: '/pets' }, key);
        const context = createLambdaContext('openapi-examples');
        // The limit is used up, then the ban's threshold is passed by one refused request.
        for (let i = 0; i < PLANS.free.perMinute + DEFAULT_BAN_POLICY.threshold + 1; i += 1) {
          answers.push(atExamplesInstant(await handler(event, context)));
        }
      });

      const firstOf = (code: ErrorCode) => {
        const found = answers.find(({ body }) => (JSON.parse(body) as ErrorBody).code === code);
        if (!found) throw new Error(`No ${code} answer`);
        return found;
      };

      it('gives each rate-limit header the example of a fresh Free key', () => {
        const examples = (name: string) =>
          (at(document, 'components', 'headers', name, 'schema').examples as unknown[]).map(String);
        for (const name of COUNT_HEADER_NAMES) {
          expect(examples(name), name).toEqual([answers[0]?.headers?.[name]]);
        }
        expect(examples(RATE_LIMIT_HEADERS.retryAfter)).toEqual([
          firstOf('rate_limited').headers?.[RATE_LIMIT_HEADERS.retryAfter],
        ]);
      });

      it("gives TooManyRequests the function's rate_limited and api_key_temporarily_banned bodies", () => {
        const media = at(
          document,
          'components',
          'responses',
          'TooManyRequests',
          'content',
          'application/json',
        );
        const functionExamples = Object.values(media.examples as Node)
          .map(resolve)
          .filter((example) => example['x-made-by'] === 'function')
          .map((example) => example.value);
        expect(functionExamples).toEqual([
          JSON.parse(firstOf('rate_limited').body),
          JSON.parse(firstOf('api_key_temporarily_banned').body),
        ]);
      });

      /** Checks a listPets answer against the document, its headers first changed by `change`. */
      function checkListPets(
        result: APIGatewayProxyResult | undefined,
        change: (headers: Headers) => void = () => {},
      ): void {
        if (!result) throw new Error('No such answer');
        const headers = new Headers(
          Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]),
        );
        change(headers);
        const response = new Response(null, { status: result.statusCode, headers });
        expectConformingResponse(
          { method: 'GET', path: '/pets' },
          response,
          JSON.parse(result.body),
        );
      }

      it('accepts its 200, rate_limited and api_key_temporarily_banned answers as sent', () => {
        checkListPets(answers[0]);
        checkListPets(answers[0], (headers) =>
          headers.set('Link', nextPageLink({ limit: 100, status: 'pending' }, 'MS4uNQ_-')),
        );
        checkListPets(firstOf('rate_limited'));
        checkListPets(firstOf('api_key_temporarily_banned'));
      });

      it('accepts a 200 without X-RateLimit-Remaining and RateLimit, as when failing open', () => {
        checkListPets(answers[0], (headers) => {
          headers.delete(RATE_LIMIT_HEADERS.remaining);
          headers.delete(RATE_LIMIT_HEADERS.state);
        });
      });

      it.each([
        [RATE_LIMIT_HEADERS.remaining, '1.5', 'X-RateLimit-Remaining must be integer'],
        [RATE_LIMIT_HEADERS.remaining, '-1', 'X-RateLimit-Remaining must be >= 0'],
        [RATE_LIMIT_HEADERS.reset, '99999999999999999999', 'X-RateLimit-Reset must be integer'],
        [RATE_LIMIT_HEADERS.limit, '0x3c', 'X-RateLimit-Limit must be integer'],
        [RATE_LIMIT_HEADERS.state, '"minute";r=59', 'RateLimit must match pattern'],
      ])('rejects a 200 whose %s is %s', (name, value, failure) => {
        expect(() => checkListPets(answers[0], (headers) => headers.set(name, value))).toThrow(
          failure,
        );
      });

      it.each([
        ['another relation', '</v1/pets?limit=20&cursor=abc>; rel="prev"'],
        ['the status before the limit', '</v1/pets?status=sold&limit=20&cursor=abc>; rel="next"'],
        ['no cursor', '</v1/pets?limit=20>; rel="next"'],
      ])('rejects a 200 whose Link has %s', (_, link) => {
        expect(() => checkListPets(answers[0], (headers) => headers.set('Link', link))).toThrow(
          'Link must match pattern',
        );
      });

      it('rejects a 200 without X-RateLimit-Limit', () => {
        expect(() =>
          checkListPets(answers[0], (headers) => headers.delete(RATE_LIMIT_HEADERS.limit)),
        ).toThrow('the required header X-RateLimit-Limit is missing');
      });

      it('rejects a 429 whose optional RateLimit-Policy is malformed, or whose Retry-After is 0', () => {
        const refused = firstOf('rate_limited');
        expect(() =>
          checkListPets(refused, (headers) => headers.set(RATE_LIMIT_HEADERS.policy, '60')),
        ).toThrow('RateLimit-Policy must match pattern');
        expect(() =>
          checkListPets(refused, (headers) => headers.set(RATE_LIMIT_HEADERS.retryAfter, '0')),
        ).toThrow('Retry-After must be >= 1');
      });
    });
  });
});
