/** Idempotent execution of a create (docs/idempotency.md). */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { IdempotencyKeyReusedError, IdempotencyKeyUsedError } from '../idempotency/errors.ts';
import { repeatAnswer } from '../idempotency/outcome.ts';
import type { IdempotentRequest, StoredResponse } from '../idempotency/record.ts';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from './idempotency-key.ts';

/**
 * Performs the request, writing `request`'s record with its effect (a `RecordedRequest`).
 * @throws IdempotencyKeyUsedError when the key has a live record (nothing was written).
 */
export type IdempotentOperation = () => Promise<StoredResponse>;

/**
 * Runs `operation` for `request` at most once per key; a repeat of the same body gets the stored
 * answer with `Idempotent-Replayed: true`.
 * @throws IdempotencyKeyReusedError when the key has a record of another body; the operation's
 *   own errors unchanged.
 */
export async function runIdempotent(
  request: IdempotentRequest,
  operation: IdempotentOperation,
): Promise<APIGatewayProxyResult> {
  try {
    return proxyResult(await operation());
  } catch (error) {
    if (!(error instanceof IdempotencyKeyUsedError)) throw error;
    if (repeatAnswer(request, error.found) === 'mismatch') {
      throw new IdempotencyKeyReusedError(
        `${IDEMPOTENCY_KEY_HEADER}: was used with a different request body; send a new key for a new request.`,
      );
    }
    return proxyResult(error.found.response, { [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
  }
}

/** The proxy result of a stored response. */
export function proxyResult(
  response: StoredResponse,
  headers: Record<string, string> = {},
): APIGatewayProxyResult {
  return {
    statusCode: response.statusCode,
    headers: { 'Content-Type': 'application/json', ...response.headers, ...headers },
    body: response.body,
  };
}
