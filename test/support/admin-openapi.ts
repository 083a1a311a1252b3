/**
 * docs/admin-openapi.yaml as the contract tests read it: the parsed document, its operations, and
 * real answers of the admin functions checked against the response schema the document gives for
 * their status (ajv, JSON Schema 2020-12, the whole document registered under one id so that its
 * `$ref`s resolve as written).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { createLambdaContext } from '../../infra/local/events.ts';
import type { AdminOperationId } from '../../shared/admin-operations.ts';
import {
  ADMIN_ERROR_CATALOGUE,
  type AnyErrorCode,
  ERROR_CATALOGUE,
  PORTAL_ERROR_CATALOGUE,
} from '../../shared/http/http-errors.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';
import { type AdminRequest, adminEvent } from './admin-event.ts';
import { adminHandlersOf } from './admin-handlers.ts';

/** A JSON object of the document. */
export type Node = Record<string, unknown>;

/** Every error code's status: the public catalogue and the admin and portal APIs' own. */
export const STATUS_OF: Readonly<Record<string, { status: number }>> = {
  ...ERROR_CATALOGUE,
  ...ADMIN_ERROR_CATALOGUE,
  ...PORTAL_ERROR_CATALOGUE,
};

/** The query parameters an operation of `document` takes, `$ref`s followed. */
export function queryParameterNames(document: Node, operation: Node): string[] {
  const components = (document.components as Node).parameters as Record<string, Node> | undefined;
  return ((operation.parameters ?? []) as Node[])
    .map((parameter) =>
      typeof parameter.$ref === 'string'
        ? (components?.[parameter.$ref.split('/').pop() as string] as Node)
        : parameter,
    )
    .filter((parameter) => parameter.in === 'query')
    .map((parameter) => String(parameter.name));
}

/** A JSON pointer segment. */
export const pointerSegment = (segment: string) =>
  segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * An OpenAPI document of docs/ as a contract test reads it: parsed (its `$ref`s unresolved), its
 * operations, and ajv (JSON Schema 2020-12) on it, the whole document registered under one id so
 * that its `$ref`s resolve as written.
 * @param file The document's name under docs/, e.g. `portal-openapi.yaml`.
 */
export function openApiDocument(file: string) {
  const id = `https://petstore.local/${file}`;
  const parsed = parse(
    readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8'),
  ) as Node;
  // OpenAPI's own keywords (example, x-…) are annotations here, not schema errors.
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats.default(ajv);
  ajv.addSchema(parsed, id);

  /** Each documented operation: method, path and the operation object. */
  const operations = () =>
    Object.entries(parsed.paths as Record<string, Node>).flatMap(([path, item]) =>
      ['get', 'put', 'post', 'delete', 'patch']
        .filter((method) => item[method])
        .map((method) => ({ method: method.toUpperCase(), path, operation: item[method] as Node })),
    );

  return {
    document: parsed,
    documented: operations,
    /** The JSON pointer of the response schema of an operation's `status`, following a `$ref`. */
    responsePointer(operationId: string, status: number): string {
      const found = operations().find(({ operation }) => operation.operationId === operationId);
      if (!found) throw new Error(`${operationId} is not documented`);
      const response = (found.operation.responses as Record<string, Node>)[String(status)];
      if (!response) throw new Error(`${operationId} documents no ${status}`);
      const base =
        typeof response.$ref === 'string'
          ? response.$ref.slice(1)
          : `/paths/${pointerSegment(found.path)}/${found.method.toLowerCase()}/responses/${status}`;
      return `${base}/content/application~1json/schema`;
    },
    /** Whether `value` conforms to the schema at `pointer`: ajv's errors, or `undefined`. */
    nonConformity(pointer: string, value: unknown): string | undefined {
      const validate = ajv.compile({ $ref: `${id}#${pointer}` });
      return validate(value) ? undefined : ajv.errorsText(validate.errors);
    },
  };
}

/** Every `example` of the document beside a `schema`, as [JSON pointer of the schema, example]. */
export function examples(node: unknown, pointer = ''): [string, unknown][] {
  if (!node || typeof node !== 'object') return [];
  const here = node as Node;
  const own: [string, unknown][] =
    'example' in here && (pointer.startsWith('/components/schemas/') || 'schema' in here)
      ? [[pointer.startsWith('/components/schemas/') ? pointer : `${pointer}/schema`, here.example]]
      : [];
  return [
    ...own,
    ...Object.entries(here).flatMap(([key, value]) =>
      key === 'example' ? [] : examples(value, `${pointer}/${pointerSegment(key)}`),
    ),
  ];
}

/** Every error response object of `document`'s operations, `$ref`s followed, with its status. */
export function errorResponses(
  document: Node,
  operations: readonly { operation: Node }[],
): { label: string; status: number; codes: string[] }[] {
  const components = (document.components as Node).responses as Record<string, Node>;
  return operations.flatMap(({ operation }) =>
    Object.entries(operation.responses as Record<string, Node>)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, response]) => {
        const resolved =
          typeof response.$ref === 'string'
            ? (components[response.$ref.split('/').pop() as string] as Node)
            : response;
        return {
          label: `${operation.operationId} ${status}`,
          status: Number(status),
          codes: resolved['x-error-codes'] as string[],
        };
      }),
  );
}

const admin = openApiDocument('admin-openapi.yaml');

/** docs/admin-openapi.yaml, parsed (its `$ref`s unresolved). */
export const document = admin.document;

/** Each documented operation of the admin API: method, path and the operation object. */
export const documented = admin.documented;

/** Whether `value` conforms to the schema at `pointer` of the admin document. */
export const nonConformity = admin.nonConformity;

/**
 * `conforming(operationId, request)` calls the operation's handler on `service` and expects
 * its answer to conform to the document's schema for its status (an error's code to have that
 * status too).
 * @returns The status and the parsed body.
 */
export function conformingAnswers(service: KeyService) {
  const handlers = adminHandlersOf(service);
  return async function conforming(operationId: AdminOperationId, request: AdminRequest = {}) {
    const handler = handlers[operationId] as (
      event: APIGatewayProxyEvent,
      context: unknown,
    ) => Promise<APIGatewayProxyResult>;
    const result = await handler(adminEvent(operationId, request), createLambdaContext('admin'));
    const body = JSON.parse(result.body);
    const pointer = admin.responsePointer(operationId, result.statusCode);
    expect(nonConformity(pointer, body), `${operationId} ${result.statusCode}`).toBeUndefined();
    if (result.statusCode >= 400) {
      expect(STATUS_OF[body.code as AnyErrorCode]?.status).toBe(result.statusCode);
    }
    return { status: result.statusCode, body };
  };
}
