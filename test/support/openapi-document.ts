/**
 * docs/openapi.yaml as the contract tests read it: the parsed document, `$ref` resolution, its
 * operations, responses, parameters and headers, the keywords of a schema that decide what it
 * accepts (to compare with the valibot schemas of the code, converted), and the code-side lists of
 * error codes and rate-limit headers the document must agree with.
 */
import { readFileSync } from 'node:fs';
import { type ConversionConfig, type JsonSchema, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { parse } from 'yaml';
import type { ErrorCode } from '../../shared/http/http-errors.ts';
import { RATE_LIMIT_HEADERS } from '../../shared/http/rate-limit-headers.ts';

/** A JSON object of the document. */
export type Node = Record<string, unknown>;

/** docs/openapi.yaml, parsed (its `$ref`s unresolved). */
export const document = parse(
  readFileSync(new URL('../../docs/openapi.yaml', import.meta.url), 'utf8'),
) as Node;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Follows a local `$ref` (`#/a/b`), keeping sibling keywords (OpenAPI 3.1 allows them).
 *
 * @throws Error naming the `$ref` when it points at nothing.
 */
export function resolve(node: unknown): Node {
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

/**
 * `resolve`, then the value at `keys` below it, resolving again at each step.
 *
 * @throws Error naming the path when a key is missing.
 */
export function at(node: unknown, ...keys: string[]): Node {
  return keys.reduce<Node>((current, key) => {
    if (current[key] === undefined) throw new Error(`No "${key}" at ${keys.join(' > ')}`);
    return resolve(current[key]);
  }, resolve(node));
}

/** Every operation of the document with its method, path and resolved object. */
export function documentedOperations(): { method: string; path: string; operation: Node }[] {
  return Object.entries(at(document, 'paths')).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => (item as Node)[method]).map((method) => ({
      method,
      path,
      operation: at(item, method),
    })),
  );
}

/** The methods the document gives `path` (e.g. `/pets`), upper-case, as an `Allow` header lists them. */
export function allowedMethods(path: string): string {
  return documentedOperations()
    .filter((entry) => entry.path === path)
    .map(({ method }) => method.toUpperCase())
    .join(', ');
}

/**
 * The operation of the document with `operationId`, resolved.
 *
 * @throws Error naming the operationId when the document has no such operation.
 */
export function operation(operationId: string): Node {
  const found = documentedOperations().find((entry) => entry.operation.operationId === operationId);
  if (!found) throw new Error(`No operation ${operationId} in docs/openapi.yaml`);
  return found.operation;
}

/** The operation's responses, resolved, keyed by status. */
export function responses(operationId: string): [status: string, response: Node][] {
  return Object.keys(at(operation(operationId), 'responses')).map((status) => [
    status,
    at(operation(operationId), 'responses', status),
  ]);
}

/** Every response of every operation, resolved, labelled `<operationId> <status>`. */
export function operationResponses(): { label: string; status: string; response: Node }[] {
  return documentedOperations().flatMap(({ operation }) =>
    Object.keys(at(operation, 'responses')).map((status) => ({
      label: `${operation.operationId} ${status}`,
      status,
      response: at(operation, 'responses', status),
    })),
  );
}

/** A response's headers, each resolved, keyed by name (none when it documents none). */
export function headersOf(response: Node): Record<string, Node> {
  return Object.fromEntries(
    Object.keys((response.headers as Node | undefined) ?? {}).map((name) => [
      name,
      at(response, 'headers', name),
    ]),
  );
}

/** A description as Markdown renders it: line breaks and runs of spaces are one space. */
export function prose(node: Node): string {
  return String(node.description).replace(/\s+/g, ' ');
}

/**
 * A parameter's or media type's example as tools that build requests pick it (Dredd; Swagger UI's "Try it out"): `example`, else the first of
 * `examples`, else the schema's `example`, first of `examples` or `default`.
 *
 * @returns `undefined` when it has none: the tool leaves an optional parameter out.
 */
export function exampleOf(node: Node): unknown {
  const first = (examples: unknown) =>
    Array.isArray(examples)
      ? examples[0]
      : examples && (Object.values(examples as Node)[0] as Node | undefined)?.value;
  const schema = (node.schema as Node | undefined) ?? {};
  return (
    node.example ??
    first(node.examples) ??
    schema.example ??
    first(schema.examples) ??
    schema.default
  );
}

/** The example body of the operation's JSON request body ({@link exampleOf}); none without a body. */
export function requestBodyExample(operationId: string): unknown {
  const found = operation(operationId);
  return found.requestBody
    ? exampleOf(at(found, 'requestBody', 'content', 'application/json'))
    : undefined;
}

/** The operation's parameters, resolved. */
export function parameters(operationId: string): Node[] {
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
export function meaningful(schema: unknown): Node {
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
export function converted(schema: v.GenericSchema): {
  jsonSchema: JsonSchema;
  uncheckedChecks: number;
} {
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

/**
 * Codes of answers that belong to no operation: an unknown path, an unserved method, and a request
 * that cannot be read in time or within the limits of the request line and headers.
 */
export const ROUTE_LEVEL_CODES: readonly ErrorCode[] = [
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'uri_too_long',
  'headers_too_large',
];

/** Every rate-limit header the functions send (shared/http/rate-limit-headers.ts). */
export const RATE_LIMIT_HEADER_NAMES: readonly string[] = Object.values(RATE_LIMIT_HEADERS);

/** The headers that report the key's windows: all but `Retry-After`, which only a 429 carries. */
export const COUNT_HEADER_NAMES = RATE_LIMIT_HEADER_NAMES.filter(
  (name) => name !== RATE_LIMIT_HEADERS.retryAfter,
);

/** `info.description` as Markdown renders it. */
export const description = () => prose(at(document, 'info'));
