/**
 * Drift tests: docs/openapi.yaml against the code it documents (route table, valibot schemas,
 * error catalogue, gateway responses, deprecation headers, plans, rate limits). Spectral checks
 * the document's own validity; these tests check that it tells the truth.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type { APIGatewayProxyResult } from 'aws-lambda';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GATEWAY_RESPONSES } from '../../infra/gateway-responses.ts';
import { newCursorKey } from '../../infra/local/cursor-key.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import {
  API_STAGE_NAME,
  AUTHORIZER_CACHE_TTL_SECONDS,
  FUNCTION_TIMEOUT_SECONDS,
  ROUTES,
} from '../../infra/routes.ts';
import { createDocumentClient } from '../../shared/clients.ts';
import { ERROR_CATALOGUE, type ErrorBody, type ErrorCode } from '../../shared/http/errors.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { MAX_BODY_BYTES } from '../../shared/http/json-body.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../shared/http/unavailable.ts';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyOf,
} from '../../shared/idempotency/key.ts';
import { IDEMPOTENCY_RECORD_TTL_SECONDS } from '../../shared/idempotency/store.ts';
import { CursorCodec, nextPageLink } from '../../shared/pets/cursor.ts';
import { GET_PET_DEPRECATION_HEADERS, GET_PET_SUNSET } from '../../shared/pets/deprecation.ts';
import {
  ListPetsQuerySchema,
  NewPetSchema,
  PAGE_LIMIT,
  PET_NAME_MAX_LENGTH,
  PET_STATUSES,
  PetIdSchema,
  PetSchema,
} from '../../shared/pets/schemas.ts';
import { BACKSTOP_FACTOR, ENTERPRISE_PLAN, PLANS } from '../../shared/plans.ts';
import { RATE_LIMIT_HEADERS, uncountedHeaders } from '../../shared/rate-limit/headers.ts';
import { DEFAULT_BAN_POLICY, DynamoDBRateLimiter } from '../../shared/rate-limit/limiter.ts';
import { BAN_POLICY_ENV, RATE_LIMITER_DEADLINE_MS } from '../../shared/rate-limit/middleware.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { COUNTERS_TABLE } from '../../shared/tables.ts';
import { authorizedEvent } from '../support/authorized-event.ts';
import { TOMORROW, tomorrowAt } from '../support/clock.ts';
import { expectConformingResponse } from '../support/openapi-conformance.ts';

type Node = Record<string, unknown>;

const document = parse(
  readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8'),
) as Node;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Follows a local `$ref` (`#/a/b`), keeping sibling keywords (OpenAPI 3.1 allows them). */
function resolve(node: unknown): Node {
  const { $ref, ...siblings } = node as Node;
  if (typeof $ref !== 'string') return node as Node;
  const target = $ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (at, key) => (at as Node)[key.replaceAll('~1', '/').replaceAll('~0', '~')],
      document,
    );
  if (target === undefined) throw new Error(`Unresolved $ref ${$ref}`);
  return { ...resolve(target), ...siblings };
}

/** `resolve`, then the value at `keys` below it, resolving again at each step. */
function at(node: unknown, ...keys: string[]): Node {
  return keys.reduce<Node>((current, key) => {
    if (current[key] === undefined) throw new Error(`No "${key}" at ${keys.join(' > ')}`);
    return resolve(current[key]);
  }, resolve(node));
}

/** Every operation of the document with its method, path and resolved object. */
function documentedOperations(): { method: string; path: string; operation: Node }[] {
  return Object.entries(at(document, 'paths')).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => (item as Node)[method]).map((method) => ({
      method,
      path,
      operation: at(item, method),
    })),
  );
}

function operation(operationId: string): Node {
  const found = documentedOperations().find((entry) => entry.operation.operationId === operationId);
  if (!found) throw new Error(`No operation ${operationId} in docs/openapi.yaml`);
  return found.operation;
}

/** The operation's responses, resolved, keyed by status. */
function responses(operationId: string): [status: string, response: Node][] {
  return Object.keys(at(operation(operationId), 'responses')).map((status) => [
    status,
    at(operation(operationId), 'responses', status),
  ]);
}

/** Every response of every operation, resolved, labelled `<operationId> <status>`. */
function operationResponses(): { label: string; status: string; response: Node }[] {
  return documentedOperations().flatMap(({ operation }) =>
    Object.keys(at(operation, 'responses')).map((status) => ({
      label: `${operation.operationId} ${status}`,
      status,
      response: at(operation, 'responses', status),
    })),
  );
}

/** A response's headers, each resolved, keyed by name (none when it documents none). */
function headersOf(response: Node): Record<string, Node> {
  return Object.fromEntries(
    Object.keys((response.headers as Node | undefined) ?? {}).map((name) => [
      name,
      at(response, 'headers', name),
    ]),
  );
}

/** A description as Markdown renders it: line breaks and runs of spaces are one space. */
function prose(node: Node): string {
  return String(node.description).replace(/\s+/g, ' ');
}

/** The operation's parameters, resolved. */
function parameters(operationId: string): Node[] {
  return ((operation(operationId).parameters as unknown[] | undefined) ?? []).map(resolve);
}

const SCHEMA_KEYWORDS = [
  'type',
  'enum',
  'minimum',
  'maximum',
  'additionalProperties',
  'default',
  'pattern',
] as const;

/** The keywords that decide what a schema accepts, with `$ref`s resolved and `required` sorted. */
function meaningful(schema: unknown): Node {
  const resolved = resolve(schema);
  const kept: Node = {};
  for (const keyword of SCHEMA_KEYWORDS) {
    if (keyword in resolved) kept[keyword] = resolved[keyword];
  }
  if (Array.isArray(resolved.required)) kept.required = [...resolved.required].sort();
  if (resolved.properties) {
    kept.properties = Object.fromEntries(
      Object.entries(resolved.properties as Node).map(([name, value]) => [name, meaningful(value)]),
    );
  }
  if (resolved.items) kept.items = meaningful(resolved.items);
  return kept;
}

/**
 * Converts a valibot schema, recording the `check` actions it cannot express. The name's length
 * check counts code points, as JSON Schema's `maxLength` does; it is asserted on its own.
 */
function converted(schema: v.GenericSchema): { jsonSchema: JsonSchema; uncheckedChecks: number } {
  let uncheckedChecks = 0;
  const config: ConversionConfig = {
    target: 'draft-2020-12',
    overrideAction({ valibotAction, jsonSchema }) {
      if (valibotAction.type === 'check') {
        uncheckedChecks += 1;
        return jsonSchema;
      }
      // JSON Schema patterns are Unicode-aware (ECMA-262 with `u`), so the flag adds nothing.
      if ('requirement' in valibotAction && valibotAction.requirement instanceof RegExp) {
        return { ...jsonSchema, pattern: valibotAction.requirement.source };
      }
      return undefined;
    },
  };
  return { jsonSchema: toJsonSchema(schema, config), uncheckedChecks };
}

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

/**
 * Codes of answers that belong to no operation: an unknown path, an unserved method, and a request
 * that cannot be read in time or within the limits of the request line and headers.
 */
const ROUTE_LEVEL_CODES: readonly ErrorCode[] = [
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'uri_too_long',
  'headers_too_large',
];

/** Statuses getPet's own function answers, each carrying the deprecation headers. */
const GET_PET_FUNCTION_STATUSES = ['200', '400', '404', '500'];

/** Every rate-limit header the functions send (shared/rate-limit/headers.ts). */
const RATE_LIMIT_HEADER_NAMES: readonly string[] = Object.values(RATE_LIMIT_HEADERS);

/** The headers that report the key's windows: all but `Retry-After`, which only a 429 carries. */
const COUNT_HEADER_NAMES = RATE_LIMIT_HEADER_NAMES.filter(
  (name) => name !== RATE_LIMIT_HEADERS.retryAfter,
);

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
  'bad_request',
  'quota_exceeded',
  'bad_gateway',
  'gateway_timeout',
];

/** API Gateway's usage-plan refusals, with their static headers. */
const GATEWAY_429S = GATEWAY_RESPONSES.filter((response) => response.body.status === 429);

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

/** `info.description` as Markdown renders it. */
const description = () => prose(at(document, 'info'));

describe('docs/openapi.yaml', () => {
  describe('operations', () => {
    it('documents exactly the routes of the route table, with their operationIds and deprecation', () => {
      const documented = documentedOperations().map(({ method, path, operation }) => ({
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId,
        deprecated: operation.deprecated === true,
      }));
      const routed = ROUTES.map((route) => ({
        method: route.method,
        path: route.path,
        operationId: route.operationId,
        deprecated: route.deprecated ?? false,
      }));
      const byKey = (a: { operationId: unknown }, b: { operationId: unknown }) =>
        String(a.operationId).localeCompare(String(b.operationId));
      expect(documented.sort(byKey)).toEqual(routed.sort(byKey));
    });

    it('protects every operation with the bearer scheme', () => {
      expect(at(document, 'components', 'securitySchemes', 'bearerAuth')).toMatchObject({
        type: 'http',
        scheme: 'bearer',
      });
      expect(document.security).toEqual([{ bearerAuth: [] }]);
      for (const { operation } of documentedOperations()) {
        expect(operation.security ?? document.security).toEqual([{ bearerAuth: [] }]);
      }
    });

    it('states the authorizer cache time that bounds how long a revoked key works', () => {
      expect(at(document, 'components', 'securitySchemes', 'bearerAuth').description).toContain(
        `for ${AUTHORIZER_CACHE_TTL_SECONDS} s`,
      );
    });

    it('gives every server a base address ending in the stage name', () => {
      for (const server of document.servers as Node[]) {
        expect(server.url).toMatch(new RegExp(`/${API_STAGE_NAME}$`));
      }
    });
  });

  describe('schemas', () => {
    it('lists the PetStatus values of the code', () => {
      expect(at(document, 'components', 'schemas', 'PetStatus').enum).toEqual([...PET_STATUSES]);
    });

    it('describes NewPet as the valibot NewPetSchema accepts it', () => {
      expect(meaningful(at(document, 'components', 'schemas', 'NewPet'))).toEqual(
        meaningful(converted(NewPetSchema).jsonSchema),
      );
    });

    it('describes Pet as the valibot PetSchema accepts it', () => {
      expect(meaningful(at(document, 'components', 'schemas', 'Pet'))).toEqual(
        meaningful(converted(PetSchema).jsonSchema),
      );
    });

    it('bounds the name by the code points the valibot check counts', () => {
      const name = at(document, 'components', 'schemas', 'PetName');
      expect(name.maxLength).toBe(PET_NAME_MAX_LENGTH);
      // The only checks the converter cannot express: this length and well-formed UTF-16.
      expect(converted(NewPetSchema).uncheckedChecks).toBe(2);
      const withName = (value: string) => v.is(NewPetSchema, { name: value, categoryId: 1 });
      expect(withName('\ud800')).toBe(false);
      expect(prose(name)).toContain('no lone surrogate');
      expect(withName('🐈'.repeat(name.maxLength as number))).toBe(true);
      expect(withName(`${'🐈'.repeat(name.maxLength as number)}a`)).toBe(false);
      expect(name.minLength).toBe(1);
      expect(withName('')).toBe(false);
    });

    it('names every code of the error catalogue, with its status and use', () => {
      const code = at(document, 'components', 'schemas', 'Error', 'properties', 'code');
      expect([...(code.enum as string[])].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
      expect(code['x-codes']).toEqual(ERROR_CATALOGUE);
    });

    it('lists every error code with its status and use in the description table', () => {
      const description = at(document, 'info').description as string;
      for (const [code, { status, description: use }] of Object.entries(ERROR_CATALOGUE)) {
        expect(description).toContain(`| \`${code}\` | ${status} | ${use} |`);
      }
    });

    it('includes the code of every gateway response in the Error code enumeration', () => {
      const codes = at(document, 'components', 'schemas', 'Error', 'properties', 'code').enum;
      for (const response of GATEWAY_RESPONSES) expect(codes).toContain(response.body.code);
    });
  });

  describe('parameters', () => {
    it('bounds limit and gives its default as the code does', () => {
      const limit = parameters('listPets').find((parameter) => parameter.name === 'limit');
      expect(limit).toMatchObject({ in: 'query' });
      expect(meaningful(limit?.schema)).toEqual({
        type: 'integer',
        minimum: PAGE_LIMIT.min,
        maximum: PAGE_LIMIT.max,
        default: PAGE_LIMIT.default,
      });
    });

    it('documents exactly the query parameters listPets accepts', () => {
      const query = parameters('listPets');
      expect(query.map((parameter) => parameter.name).sort()).toEqual(
        Object.keys(ListPetsQuerySchema.entries).sort(),
      );
      const status = query.find((parameter) => parameter.name === 'status');
      expect(meaningful(status?.schema).enum).toEqual([...PET_STATUSES]);
    });

    it('gives petId an example the code accepts, for tools that build requests (Dredd)', () => {
      const [petId] = parameters('getPet');

      expect(petId?.example).toBeDefined();
      expect(v.is(PetIdSchema, String(petId?.example))).toBe(true);
    });

    it('documents cursor as an optional base64url string whose example is a cursor the code issues', () => {
      const cursor = parameters('listPets').find((parameter) => parameter.name === 'cursor');
      expect(cursor).toMatchObject({ in: 'query', required: false });
      expect(meaningful(cursor?.schema)).toEqual({ type: 'string', pattern: '^[A-Za-z0-9_-]+$' });
      const issued = new CursorCodec(newCursorKey()).encode({ status: 'sold', afterId: 50 });
      expect(String(cursor?.example)).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(String(cursor?.example)).toHaveLength(issued.length);
    });

    it('documents petId as the positive integer the code accepts', () => {
      const [petId] = parameters('getPet');
      expect(petId).toMatchObject({ name: 'petId', in: 'path', required: true });
      expect(meaningful(petId?.schema)).toEqual({ type: 'integer', minimum: 1 });
      expect(v.is(PetIdSchema, '1')).toBe(true);
      expect(v.is(PetIdSchema, '0')).toBe(false);
    });

    it('documents no query parameter on createPet and getPet, which refuse every one', () => {
      for (const operationId of ['createPet', 'getPet']) {
        expect(parameters(operationId).filter((parameter) => parameter.in === 'query')).toEqual([]);
        const badRequest = at(operation(operationId), 'responses', '400');
        expect(badRequest['x-error-codes']).toContain('invalid_parameter');
      }
    });
  });

  describe('Idempotency-Key', () => {
    const header = () =>
      parameters('createPet').find((parameter) => parameter.name === IDEMPOTENCY_KEY_HEADER);
    /** Whether the code takes `value` as a key (it throws ApiError 400 otherwise). */
    const accepted = (value: string) => {
      const event = authorizedEvent({
        method: 'POST',
        resource: '/pets',
        path: '/pets',
        headers: { [IDEMPOTENCY_KEY_HEADER.toLowerCase()]: value },
      });
      try {
        return idempotencyKeyOf(event) !== undefined;
      } catch {
        return false;
      }
    };

    it('is an optional header of createPet only', () => {
      expect(header()).toMatchObject({ in: 'header', required: false });
      for (const operationId of ['listPets', 'getPet']) {
        expect(parameters(operationId).map((parameter) => parameter.name)).not.toContain(
          IDEMPOTENCY_KEY_HEADER,
        );
      }
    });

    it('has the pattern of the keys the code accepts, quoted or not, up to its longest', () => {
      const pattern = new RegExp(at(header(), 'schema').pattern as string, 'u');
      const longest = 'k'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH);
      const values = [
        '8e03978e-40d5-43e8-bc93-6894a57f9324',
        '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
        'a"b',
        '"a\\"b\\\\c"',
        '~!#$%&*+-.^_`|',
        longest,
        `"${longest}"`,
        `"${'\\"'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH)}"`,
        `${longest}k`,
        `"${longest}k"`,
        `"${'\\"'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1)}"`,
        '',
        '""',
        '"',
        '"open',
        'two words',
        '"two words"',
        'clé',
        '"a\\b"',
        'tab\there',
      ];
      for (const value of values) {
        expect(pattern.test(value), JSON.stringify(value)).toBe(accepted(value));
      }
      expect(values.filter(accepted).length).toBeGreaterThanOrEqual(8);
    });

    it('gives examples the code accepts', () => {
      const examples = Object.values(header()?.examples as Node).map(
        (example) => resolve(example).value as string,
      );
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) expect(accepted(example), example).toBe(true);
    });

    it('states how long a key is kept and that it is scoped to the API key', () => {
      const hours = IDEMPOTENCY_RECORD_TTL_SECONDS / 3600;
      for (const text of [prose(header() as Node), description()]) {
        expect(text).toContain(`kept for ${hours} hours after the first request`);
        expect(text).toContain('scoped to the API key');
      }
    });

    it('declares Idempotent-Replayed on the 201 of createPet as an optional `true`', () => {
      const created = headersOf(at(operation('createPet'), 'responses', '201'));
      expect(created[IDEMPOTENT_REPLAYED_HEADER]).toMatchObject({
        required: false,
        schema: { type: 'string', const: 'true' },
      });
    });

    it('documents 409 with Retry-After and 422 on createPet only', () => {
      const statuses = (operationId: string) => responses(operationId).map(([status]) => status);
      expect(statuses('createPet')).toEqual(expect.arrayContaining(['409', '422']));
      for (const operationId of ['listPets', 'getPet']) {
        expect(statuses(operationId)).not.toContain('409');
        expect(statuses(operationId)).not.toContain('422');
      }
      const conflict = at(operation('createPet'), 'responses', '409');
      expect(conflict['x-error-codes']).toEqual(['idempotency_request_in_progress']);
      expect(headersOf(conflict)[RATE_LIMIT_HEADERS.retryAfter]).toMatchObject({ required: true });
      expect(at(operation('createPet'), 'responses', '422')['x-error-codes']).toEqual([
        'idempotency_key_reused',
      ]);
    });
  });

  describe('request body', () => {
    it('accepts only application/json on createPet', () => {
      expect(Object.keys(at(operation('createPet'), 'requestBody', 'content'))).toEqual([
        'application/json',
      ]);
    });
  });

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
        for (const gateway of GATEWAY_RESPONSES.filter((r) => codes.includes(r.body.code))) {
          for (const [header, value] of Object.entries(gateway.headers)) {
            const declared = at(component, 'headers', header);
            expect(declared.required, `${name} ${header}`).toBe(true);
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
        `does not answer within ${RATE_LIMITER_DEADLINE_MS / 1000} s`,
      );
    });

    it("accepts a function's 503 for a store that timed out, while the rate limiter fails open", async () => {
      const timedOut = Object.assign(new Error('The operation was aborted'), {
        name: 'TimeoutError',
      });
      const handler = httpHandler(
        async () => {
          throw timedOut;
        },
        {
          rateLimiter: {
            consume: async () => {
              throw timedOut;
            },
          },
        },
      );
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

  describe('deprecation of getPet', () => {
    it('documents the deprecation headers with their values on every answer of its function', () => {
      for (const status of GET_PET_FUNCTION_STATUSES) {
        const headers = at(operation('getPet'), 'responses', status, 'headers');
        const others = Object.keys(headers).filter(
          (name) => !RATE_LIMIT_HEADER_NAMES.includes(name),
        );
        expect(others.sort()).toEqual(Object.keys(GET_PET_DEPRECATION_HEADERS).sort());
        for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) {
          expect(at(headers, name)).toMatchObject({ required: true, schema: { const: value } });
        }
      }
    });

    it('documents the sunset date', () => {
      expect(operation('getPet')['x-sunset']).toBe(GET_PET_SUNSET.toISOString().slice(0, 10));
    });

    it('documents no deprecation header on the other operations', () => {
      const successor = at(document, 'components', 'headers', 'Link');
      for (const { operationId } of ROUTES.filter((route) => !route.deprecated)) {
        for (const [, response] of responses(operationId)) {
          for (const name of Object.keys(GET_PET_DEPRECATION_HEADERS)) {
            // listPets's 200 has a Link of its own: rel="next", never the successor-version one.
            if (name === 'Link' && (response.headers as Node | undefined)?.Link) {
              expect(operationId).toBe('listPets');
              expect(at(response, 'headers', name)).not.toEqual(successor);
              continue;
            }
            expect(response.headers ?? {}).not.toHaveProperty(name);
          }
        }
      }
    });
  });

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

    it('states that a plan change or a revocation takes effect within the authorizer cache time', () => {
      expect(description()).toContain(
        `a plan change or a revocation takes effect within ${AUTHORIZER_CACHE_TTL_SECONDS} s`,
      );
    });

    it('states the default ban, the variables that change it and the command that lifts it', () => {
      const { threshold, durationSeconds } = DEFAULT_BAN_POLICY;
      const tooManyRequests = prose(at(document, 'components', 'responses', 'TooManyRequests'));
      for (const text of [description(), tooManyRequests]) {
        expect(text).toContain(`more than ${threshold} refused`);
        expect(text).toContain(`banned for ${durationSeconds / 60} minutes`);
      }
      for (const variable of Object.values(BAN_POLICY_ENV)) {
        expect(description()).toContain(`\`${variable}\``);
      }
      expect(description()).toContain('`npm run keys -- unban <key-id>`');
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
        ...Object.keys(GET_PET_DEPRECATION_HEADERS),
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

    describe("the functions' rate limiter at the examples' instant", () => {
      /**
       * A fresh Free key's answers at EXAMPLES_AT (made at LIMITER_AT), from its first request to
       * its first banned one.
       */
      const answers: APIGatewayProxyResult[] = [];
      const client = createDocumentClient();
      afterAll(() => client.destroy());

      beforeAll(async () => {
        const handler = httpHandler(async () => jsonResponse(200, []), {
          rateLimiter: new DynamoDBRateLimiter(
            client,
            requiredSetting(readSettings(), COUNTERS_TABLE.envVar),
          ),
          now: () => LIMITER_AT,
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
