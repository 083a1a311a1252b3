/** Validation at the edge: one valibot parse, its first issue an ApiError naming the field. */
import * as v from 'valibot';
import { ApiError, type ErrorCode } from './http-errors.ts';

/**
 * Parses `input` with `schema` (defaults applied, text converted).
 * @param what The input as a message names it, e.g. `body`. @param code `invalid_body` or `invalid_parameter`.
 * @throws ApiError with `code` and e.g. `name: must be a string` or `colour: is not allowed`.
 */
export function parseOrThrow<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  what: string,
  code: ErrorCode,
): v.InferOutput<TSchema> {
  // valibot's object schemas accept arrays; a body is the JSON object, or array, its schema is.
  const array = schema.type === 'array';
  if (
    code === 'invalid_body' &&
    (typeof input !== 'object' || input === null || Array.isArray(input) !== array)
  ) {
    throw new ApiError(code, `${what}: must be a JSON ${array ? 'array' : 'object'}`);
  }
  const result = v.safeParse(schema, input, { abortEarly: true });
  if (result.success) return result.output;
  const [issue] = result.issues;
  throw new ApiError(code, `${v.getDotPath(issue) ?? what}: ${describe(issue)}`);
}

function describe(issue: v.BaseIssue<unknown>): string {
  if (issue.expected === 'never') return 'is not allowed';
  if (issue.received === 'undefined') return 'is required';
  return issue.message;
}
