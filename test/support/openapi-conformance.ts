/**
 * Conformance of real answers to docs/openapi.yaml: every response an integration test receives
 * is checked against what the document promises for its operation and status, so the document
 * cannot describe an answer the API does not send. Schemas are validated with ajv (JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1), with the whole document registered under one id so that
 * its `$ref`s resolve as written.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { Middleware } from 'openapi-fetch';
import { assert, expect } from 'vitest';
import { parse } from 'yaml';
import type { ErrorCode } from '../../shared/http/http-errors.ts';

type Node = Record<string, unknown>;

/** A request as the document names it: its method and its path below the base address. */
export interface DocumentedRequest {
  /** HTTP method, any case. */
  method: string;
  /** A concrete path (`/pets/abc?limit=1`; the query is ignored) or a template (`/pets/{petId}`). */
  path: string;
}

const DOCUMENT_ID = 'https://petstore.local/openapi.yaml';

const document = parse(
  readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8'),
) as Node;

/**
 * The keywords ajv must accept as annotations: those OpenAPI 3.1 adds to JSON Schema, the
 * document's `x-` extensions, and the fields of the document's root (ajv compiles the root,
 * registered as a schema, whenever a `$ref` points into it).
 */
function annotationKeywords(): Set<string> {
  const found = new Set([
    'discriminator',
    'xml',
    'externalDocs',
    'example',
    ...Object.keys(document),
  ]);
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key);
      visit(value);
    }
  };
  visit(document);
  return found;
}

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
ajv.addVocabulary([...annotationKeywords()]);
ajv.addSchema(document, DOCUMENT_ID);

/**
 * The answers that belong to no operation, as `info.description` documents them ("Two answers
 * belong to no operation"): an Error body with these codes, whose statuses `x-codes` gives.
 */
const ROUTE_LEVEL_CODES = {
  unknownPath: 'not_found',
  unservedMethod: 'method_not_allowed',
} as const satisfies Record<string, ErrorCode>;

/** The media type of every Error body, `info.description` "Errors". */
const ERROR_MEDIA_TYPE = 'application/json';

/** A node of the document with its JSON pointer, `$ref`s followed. */
interface Located {
  node: Node;
  pointer: string;
}

function escapeSegment(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** The node at `pointer`, following `$ref`s to the node they name. */
function locate(pointer: string): Located {
  const node = pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (at, segment) =>
        (at as Node | undefined)?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')],
      document,
    ) as Node | undefined;
  if (node === undefined) throw new Error(`docs/openapi.yaml has nothing at #${pointer}`);
  return typeof node.$ref === 'string'
    ? locate(decodeURIComponent(node.$ref.replace(/^#/, '')))
    : { node, pointer };
}

/** The child `key` of a located node, or undefined when it has none. */
function child(parent: Located, key: string): Located | undefined {
  return parent.node[key] === undefined
    ? undefined
    : locate(`${parent.pointer}/${escapeSegment(key)}`);
}

/**
 * Asserts that `value` validates against the schema at `pointer`, giving ajv's errors (with
 * `dataVar` naming the value) in the failure message.
 */
function expectValid(pointer: string, value: unknown, dataVar: string, failure: string): void {
  const fragment = pointer.split('/').map(encodeURIComponent).join('/');
  const validate = ajv.getSchema(`${DOCUMENT_ID}#${fragment}`);
  if (!validate) throw new Error(`docs/openapi.yaml has no schema at #${pointer}`);
  if (!validate(value)) {
    assert.fail(`${failure} (#${pointer}): ${ajv.errorsText(validate.errors, { dataVar })}`);
  }
}

/** The document's path template that serves `path`, a literal match before a templated one. */
function pathTemplate(path: string): string | undefined {
  const templates = Object.keys(document.paths as Node);
  const matches = (template: string) =>
    new RegExp(`^${template.replace(/\{[^/}]+\}/g, '[^/]+')}$`).test(path);
  return templates.find((template) => template === path) ?? templates.find(matches);
}

/** The methods the document serves at a path template, upper case. */
function documentedMethods(template: string): string[] {
  const item = locate(`/paths/${escapeSegment(template)}`).node;
  return ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
    .filter((method) => item[method] !== undefined)
    .map((method) => method.toUpperCase());
}

/** The media type of a Content-Type header, without parameters, lower case. */
function mediaType(response: Response): string | undefined {
  return response.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() || undefined;
}

/**
 * Asserts that an answer is one the document promises for its operation: its status is listed
 * (exactly, as `4XX`, or as `default`); its Content-Type is a documented media type; its body
 * validates against that media type's schema (ajv's errors in the failure message), or is empty
 * when the response documents no content; every header marked `required: true` is present; and
 * every documented header that is present, required or not, validates against its schema (the
 * schemas' `const`, `enum` and `pattern` included; see {@link typedHeaderValue} for integers). A path
 * no template matches, or a documented path with a method it does not serve, must be the
 * route-level answer `info.description` documents: 404 `not_found`, or 405
 * `method_not_allowed` with an `Allow` header listing exactly the path's documented methods.
 *
 * @param request The method and path the answer was made for.
 * @param response The answer; its body must already have been read into `body`.
 * @param body The parsed body (see {@link readBody}).
 * @throws AssertionError naming the operation, status and what does not conform.
 */
export function expectConformingResponse(
  request: DocumentedRequest,
  response: Response,
  body: unknown,
): void {
  const path = request.path.split('?')[0] ?? '';
  const method = request.method.toLowerCase();
  const template = pathTemplate(path);
  const label = `${request.method.toUpperCase()} ${template ?? path} ${response.status}`;
  const item = template && locate(`/paths/${escapeSegment(template)}`);
  const operation = item && child(item, method);
  if (!operation) {
    expectRouteLevelAnswer(label, template, response, body);
    return;
  }
  const responses = child(operation, 'responses');
  const status = String(response.status);
  const documented =
    responses &&
    (child(responses, status) ?? child(responses, `${status[0]}XX`) ?? child(responses, 'default'));
  expect(documented, `${label}: the status is not documented for the operation`).toBeDefined();
  if (!documented) return;
  const content = child(documented, 'content');
  if (!content) {
    expect(body, `${label}: the response documents no content`).toBeUndefined();
  } else {
    const type = mediaType(response);
    const media = type === undefined ? undefined : child(content, type);
    expect(type, `${label}: the Content-Type is not a documented media type`).toBeOneOf(
      Object.keys(content.node),
    );
    if (media?.node.schema !== undefined) {
      expectValid(`${media.pointer}/schema`, body, 'body', `${label}: the body does not conform`);
    }
  }
  const headers = child(documented, 'headers');
  for (const name of Object.keys(headers?.node ?? {})) {
    const header = headers && child(headers, name);
    if (!header) continue;
    const value = response.headers.get(name);
    if (header.node.required === true) {
      expect(value, `${label}: the required header ${name} is missing`).not.toBeNull();
    }
    const schema = child(header, 'schema');
    if (value !== null && schema) {
      expectValid(
        `${header.pointer}/schema`,
        typedHeaderValue(value, schema.node),
        name,
        `${label}: the header does not conform`,
      );
    }
  }
}

/**
 * A header's value as its schema types it. A header travels as text, so an integer schema
 * (`type: integer`) gets the number when the text is decimal digits, with an optional leading
 * minus, that a JSON number holds exactly; any other text stays a string and fails `type`.
 */
function typedHeaderValue(value: string, schema: Node): unknown {
  if (schema.type !== 'integer' || !/^-?[0-9]+$/.test(value)) return value;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value;
}

/** The route-level half of {@link expectConformingResponse}. */
function expectRouteLevelAnswer(
  label: string,
  template: string | undefined,
  response: Response,
  body: unknown,
): void {
  const code = template ? ROUTE_LEVEL_CODES.unservedMethod : ROUTE_LEVEL_CODES.unknownPath;
  const catalogue = locate('/components/schemas/Error/properties/code').node['x-codes'] as Record<
    string,
    { status: number }
  >;
  expect(response.status, `${label}: a route-level answer must be ${code}`).toBe(
    catalogue[code]?.status,
  );
  expect(mediaType(response), `${label}: the Content-Type of an Error`).toBe(ERROR_MEDIA_TYPE);
  expectValid('/components/schemas/Error', body, 'body', `${label}: the body is not an Error`);
  expect((body as { code?: unknown }).code, `${label}: the Error code`).toBe(code);
  if (template) {
    const allow = response.headers.get('allow')?.split(/,\s*/).sort();
    expect(allow, `${label}: Allow must list the path's documented methods`).toEqual(
      documentedMethods(template).sort(),
    );
  }
}

/**
 * Reads a response's body the way the checks expect it: undefined when empty, parsed JSON when
 * the media type is JSON (`application/json` or `+json`), else the text.
 *
 * @throws SyntaxError when a JSON media type carries malformed JSON.
 */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  return /^application\/(.+\+)?json$/.test(mediaType(response) ?? '') ? JSON.parse(text) : text;
}

/**
 * An openapi-fetch middleware that applies {@link expectConformingResponse} to every response of
 * the client it is added to (reading a clone, so the client still reads the body); a response that
 * does not conform rejects the client's call with the assertion error.
 */
export const conformanceMiddleware: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    const body = await readBody(response.clone());
    expectConformingResponse({ method: request.method, path: schemaPath }, response, body);
  },
};
