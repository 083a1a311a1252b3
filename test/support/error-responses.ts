/**
 * The expected results of error answers, spelt out for unit tests that compare a handler's whole
 * API Gateway proxy result. It is built here from literal values, never with the code under test.
 */
import type { ErrorCode } from '../../shared/http/errors.ts';

/**
 * The complete proxy result of an Error answer (petstore-spec.md, "Errors"): the Error body
 * `{ code, message, status }`, serialised in that key order, with `Content-Type:
 * application/json`.
 *
 * @param status HTTP status, both the `statusCode` and the body's `status`.
 * @param code Catalogue code of the body.
 * @param message Message of the body, exactly as the client reads it.
 * @param headers Headers the answer carries besides `Content-Type` (e.g. `Allow`, `Deprecation`).
 * @returns `{ statusCode, headers, body }` to pass to `toEqual`.
 */
export function errorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): { statusCode: number; headers: Record<string, string>; body: string } {
  return {
    statusCode: status,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ code, message, status }),
  };
}
