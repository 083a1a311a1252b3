/**
 * Builders of API Gateway proxy (REST, v1) results.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';

/**
 * A JSON response.
 *
 * @param statusCode HTTP status.
 * @param body Serialised with `JSON.stringify`.
 * @param headers Extra headers; `Content-Type: application/json` is always set.
 */
export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  };
}
