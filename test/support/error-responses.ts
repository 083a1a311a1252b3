/**
 * Expected error answers: spelt out for unit tests that compare a handler's whole API Gateway
 * proxy result (built here from literal values, never with the code under test), and checked
 * over HTTP for integration tests.
 */
import { expect } from 'vitest';
import type { ErrorCode } from '../../shared/http/http-errors.ts';

/**
 * The complete proxy result of an Error answer (docs/api.md, "Error codes"): the Error body
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

/**
 * Asserts an Error answer: the HTTP status, `application/json`, and a body of exactly
 * `{code, message, status}` with `status` equal to the HTTP status and, when `naming` is given,
 * a message that names that field or parameter.
 */
export function expectError(
  response: Response,
  body: unknown,
  expected: { status: number; code: ErrorCode; naming?: string },
): void {
  expect(response.status).toBe(expected.status);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(Object.keys(body as object).sort()).toEqual(['code', 'message', 'status']);
  expect(body).toMatchObject({ code: expected.code, status: expected.status });
  expect((body as { message: unknown }).message).toEqual(expect.any(String));
  if (expected.naming) {
    expect((body as { message: string }).message).toMatch(new RegExp(`^${expected.naming}: `));
  }
}
