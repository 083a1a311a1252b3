/** Builders of API Gateway proxy (REST, v1) results. */
import type { APIGatewayProxyResult } from 'aws-lambda';

/** A JSON response (`Content-Type: application/json` and `headers`). */
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
