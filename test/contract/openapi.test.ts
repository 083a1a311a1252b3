/**
 * Drift tests: docs/openapi.yaml against the code it documents (route table, valibot schemas,
 * error catalogue, gateway responses, deprecation headers, plans). Spectral checks the document's
 * own validity; these tests check that it tells the truth.
 */
import { readFileSync } from 'node:fs';
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { GATEWAY_RESPONSES, gatewayResponse } from '../../infra/gateway-responses.ts';
import { API_STAGE_NAME, AUTHORIZER_CACHE_TTL_SECONDS, ROUTES } from '../../infra/routes.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../shared/http/errors.ts';
import { MAX_BODY_BYTES } from '../../shared/http/middleware.ts';
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
import { PLANS } from '../../shared/plans.ts';

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
  'gateway_timeout',
];

/** Codes of answers that belong to no operation: an unknown path, an unserved method. */
const ROUTE_LEVEL_CODES: readonly ErrorCode[] = ['not_found', 'method_not_allowed'];

/** Statuses getPet's own function answers, each carrying the deprecation headers. */
const GET_PET_FUNCTION_STATUSES = ['200', '400', '404', '500'];

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
      // The only check the converter cannot express is this length check.
      expect(converted(NewPetSchema).uncheckedChecks).toBe(1);
      const withName = (value: string) => v.is(NewPetSchema, { name: value, categoryId: 1 });
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

    it('lists every error code with its status in the description table', () => {
      const description = at(document, 'info').description as string;
      for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
        expect(description).toContain(`| \`${code}\` | ${status} |`);
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

    it('documents petId as the positive integer the code accepts', () => {
      const [petId] = parameters('getPet');
      expect(petId).toMatchObject({ name: 'petId', in: 'path', required: true });
      expect(meaningful(petId?.schema)).toEqual({ type: 'integer', minimum: 1 });
      expect(v.is(PetIdSchema, '1')).toBe(true);
      expect(v.is(PetIdSchema, '0')).toBe(false);
    });
  });

  describe('error responses', () => {
    const errorResponses = documentedOperations().flatMap(({ operation }) =>
      Object.keys(at(operation, 'responses'))
        .filter((status) => Number(status) >= 400)
        .map((status) => ({
          operationId: operation.operationId,
          status,
          response: at(operation, 'responses', status),
        })),
    );

    it.each(
      errorResponses.map((entry) => [`${entry.operationId} ${entry.status}`, entry] as const),
    )('documents %s with codes of its status and Error examples', (_, { status, response }) => {
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
    });

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
        'GatewayTimeout',
      ]) {
        const media = at(document, 'components', 'responses', name, 'content', 'application/json');
        const examples = media.example
          ? [media.example]
          : Object.values(media.examples as Node).map((example) => resolve(example).value);
        for (const example of examples) expect(gatewayBodies).toContainEqual(example);
      }
      const unauthorized = at(document, 'components', 'responses', 'Unauthorized');
      for (const [header, value] of Object.entries(gatewayResponse('UNAUTHORIZED').headers)) {
        expect(at(unauthorized, 'headers', header, 'schema').const).toBe(value);
      }
    });

    it('states the body size limit of the code', () => {
      expect(at(document, 'components', 'responses', 'PayloadTooLarge').description).toContain(
        `${MAX_BODY_BYTES} bytes`,
      );
    });
  });

  describe('deprecation of getPet', () => {
    it('documents the deprecation headers with their values on every answer of its function', () => {
      for (const status of GET_PET_FUNCTION_STATUSES) {
        const headers = at(operation('getPet'), 'responses', status, 'headers');
        expect(Object.keys(headers).sort()).toEqual(
          Object.keys(GET_PET_DEPRECATION_HEADERS).sort(),
        );
        for (const [name, value] of Object.entries(GET_PET_DEPRECATION_HEADERS)) {
          expect(at(headers, name)).toMatchObject({ required: true, schema: { const: value } });
        }
      }
    });

    it('documents the sunset date', () => {
      expect(operation('getPet')['x-sunset']).toBe(GET_PET_SUNSET.toISOString().slice(0, 10));
    });

    it('documents no deprecation header on the other operations', () => {
      for (const { operationId } of ROUTES.filter((route) => !route.deprecated)) {
        for (const [, response] of responses(operationId)) {
          for (const name of Object.keys(GET_PET_DEPRECATION_HEADERS)) {
            expect(response.headers ?? {}).not.toHaveProperty(name);
          }
        }
      }
    });
  });

  describe('limits', () => {
    it('states the numbers of every plan', () => {
      const description = at(document, 'info').description as string;
      for (const plan of Object.values(PLANS)) {
        expect(description).toContain(
          `${plan.name}: ${plan.perMinute.toLocaleString('en-US')}/min and ${plan.perDay.toLocaleString('en-US')}/day`,
        );
      }
    });
  });
});
