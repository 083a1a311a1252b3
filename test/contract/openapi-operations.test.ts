/**
 * docs/openapi.yaml against the code it documents, operation by operation: the routes of the
 * route table with their operationIds, security and servers; the schemas against the valibot
 * schemas and the error catalogue; the parameters and the request body; getPet's deprecation
 * headers and sunset. Spectral checks the document's own validity; these tests check that it
 * tells the truth.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '../../infra/gateway-responses.ts';
import { newSecretValue } from '../../infra/local/local-secrets.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS, ROUTES, routeOf } from '../../infra/routes.ts';
import { type Deprecation, deprecationHeaders } from '../../shared/http/deprecation.ts';
import { ERROR_CATALOGUE } from '../../shared/http/http-errors.ts';
import { API_STAGE_NAME } from '../../shared/paths.ts';
import { CursorCodec } from '../../shared/pets/cursor.ts';
import { ListPetsQuerySchema, PAGE_LIMIT, PetIdSchema } from '../../shared/pets/parameters.ts';
import {
  NewPetSchema,
  PET_NAME_MAX_LENGTH,
  PET_STATUSES,
  PetSchema,
} from '../../shared/pets/schemas.ts';
import {
  at,
  converted,
  document,
  documentedOperations,
  meaningful,
  type Node,
  operation,
  parameters,
  prose,
  RATE_LIMIT_HEADER_NAMES,
  responses,
} from '../support/openapi-document.ts';

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
        deprecated: route.deprecation !== undefined,
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

    /** Each code's status and use, as `Error.code`'s `x-codes` states them. */
    const xCodes = () =>
      at(document, 'components', 'schemas', 'Error', 'properties', 'code')['x-codes'] as Record<
        string,
        { status: number; description: string }
      >;

    it('names every code of the error catalogue, with its status and use', () => {
      const code = at(document, 'components', 'schemas', 'Error', 'properties', 'code');
      expect([...(code.enum as string[])].sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
      const statuses = Object.entries(xCodes()).map(([name, { status }]) => [name, { status }]);
      expect(Object.fromEntries(statuses)).toEqual(ERROR_CATALOGUE);
      for (const { description } of Object.values(xCodes())) expect(description).toMatch(/\S/);
    });

    it('lists every error code with its status and use in the description table', () => {
      const description = at(document, 'info').description as string;
      for (const [code, { status, description: use }] of Object.entries(xCodes())) {
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

    it('documents cursor as an optional base64url string with no request example: clients copy it from Link', () => {
      const cursor = parameters('listPets').find((parameter) => parameter.name === 'cursor');
      expect(cursor).toMatchObject({ in: 'query', required: false });
      expect(meaningful(cursor?.schema)).toEqual({ type: 'string', pattern: '^[A-Za-z0-9_-]+$' });
      expect(cursor).not.toHaveProperty('example');
      expect(cursor).not.toHaveProperty('examples');
      const issued = new CursorCodec(newSecretValue()).encode({ status: 'sold', afterId: 50 });
      const link = String(at(document, 'components', 'headers', 'NextPageLink', 'example'));
      expect(link).toMatch(new RegExp(`[?&]cursor=[A-Za-z0-9_-]{${issued.length}}>`));
    });

    it('documents petId as the positive integer the code accepts', () => {
      const [petId] = parameters('getPet');
      expect(petId).toMatchObject({ name: 'petId', in: 'path', required: true });
      expect(meaningful(petId?.schema)).toEqual({ type: 'integer', minimum: 1 });
      expect(v.is(PetIdSchema, '1')).toBe(true);
      expect(v.is(PetIdSchema, '0')).toBe(false);
    });

    it('documents no query parameter on the operations but listPets, which refuse every one', () => {
      const others = documentedOperations()
        .map(({ operation }) => String(operation.operationId))
        .filter((operationId) => operationId !== 'listPets');
      expect(others.length).toBeGreaterThan(0);
      for (const operationId of others) {
        expect(parameters(operationId).filter((parameter) => parameter.in === 'query')).toEqual([]);
        const badRequest = at(operation(operationId), 'responses', '400');
        expect(badRequest['x-error-codes']).toContain('invalid_parameter');
      }
    });
  });

  describe('request body', () => {
    it('accepts only application/json on createPet', () => {
      expect(Object.keys(at(operation('createPet'), 'requestBody', 'content'))).toEqual([
        'application/json',
      ]);
    });
  });

  describe("getPet's deprecation, from its row", () => {
    const deprecation = routeOf('getPet').deprecation;

    it('documents the deprecation headers with their values on every answer of its function', () => {
      expect(deprecation).toBeDefined();
      const expected = deprecationHeaders(deprecation as Deprecation);
      for (const status of GET_PET_FUNCTION_STATUSES) {
        const headers = at(operation('getPet'), 'responses', status, 'headers');
        const others = Object.keys(headers).filter(
          (name) => !RATE_LIMIT_HEADER_NAMES.includes(name),
        );
        expect(others.sort()).toEqual(Object.keys(expected).sort());
        for (const [name, value] of Object.entries(expected)) {
          expect(at(headers, name)).toMatchObject({ required: true, schema: { const: value } });
        }
      }
    });

    it('documents the sunset date', () => {
      expect(operation('getPet')['x-sunset']).toBe(deprecation?.sunset.toISOString().slice(0, 10));
    });

    it('documents no deprecation header on the other operations', () => {
      const successor = at(document, 'components', 'headers', 'Link');
      for (const { operationId } of ROUTES.filter((route) => !route.deprecation)) {
        for (const [, response] of responses(operationId)) {
          for (const name of ['Deprecation', 'Sunset', 'Link']) {
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
});
