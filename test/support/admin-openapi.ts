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
} from '../../shared/http/http-errors.ts';
import type { KeyService } from '../../shared/keys/key-service.ts';
import { type AdminRequest, adminEvent } from './admin-event.ts';
import { adminHandlersOf } from './admin-handlers.ts';

/** A JSON object of the document. */
export type Node = Record<string, unknown>;

const DOCUMENT_ID = 'https://petstore.local/admin-openapi.yaml';

/** docs/admin-openapi.yaml, parsed (its `$ref`s unresolved). */
export const document = parse(
  readFileSync(new URL('../../docs/admin-openapi.yaml', import.meta.url), 'utf8'),
) as Node;

// OpenAPI's own keywords (example, x-…) are annotations here, not schema errors.
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(document, DOCUMENT_ID);

/** Every error code's status: the public catalogue's and the admin API's own. */
export const STATUS_OF: Readonly<Record<string, { status: number }>> = {
  ...ERROR_CATALOGUE,
  ...ADMIN_ERROR_CATALOGUE,
};

/** A JSON pointer segment. */
export const pointerSegment = (segment: string) =>
  segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Each documented operation: method, path and the operation object. */
export function documented() {
  return Object.entries(document.paths as Record<string, Node>).flatMap(([path, item]) =>
    ['get', 'put', 'post', 'delete', 'patch']
      .filter((method) => item[method])
      .map((method) => ({ method: method.toUpperCase(), path, operation: item[method] as Node })),
  );
}

/** The JSON pointer of the response schema of an operation's `status`, following a `$ref`. */
function responsePointer(operationId: AdminOperationId, status: number): string {
  const found = documented().find(({ operation }) => operation.operationId === operationId);
  if (!found) throw new Error(`${operationId} is not documented`);
  const response = (found.operation.responses as Record<string, Node>)[String(status)];
  if (!response) throw new Error(`${operationId} documents no ${status}`);
  const base =
    typeof response.$ref === 'string'
      ? response.$ref.slice(1)
      : `/paths/${pointerSegment(found.path)}/${found.method.toLowerCase()}/responses/${status}`;
  return `${base}/content/application~1json/schema`;
}

/**
 * Whether `value` conforms to the schema at `pointer` of the document.
 * @returns ajv's errors as text, or `undefined` when it conforms.
 */
export function nonConformity(pointer: string, value: unknown): string | undefined {
  const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}

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
    const pointer = responsePointer(operationId, result.statusCode);
    expect(nonConformity(pointer, body), `${operationId} ${result.statusCode}`).toBeUndefined();
    if (result.statusCode >= 400) {
      expect(STATUS_OF[body.code as AnyErrorCode]?.status).toBe(result.statusCode);
    }
    return { status: result.statusCode, body };
  };
}
