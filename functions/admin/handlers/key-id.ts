/** What every admin operation on one key reads first: the key id of its path, checked. */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { parseOrThrow } from '../../../shared/http/validation.ts';
import { KeyIdSchema } from '../../../shared/keys/admin-schemas.ts';

/**
 * The `{keyId}` path parameter.
 * @throws ApiError 400 `invalid_parameter` unless it is `key_` and 16 lower-case hex digits.
 */
export function keyIdOf(event: APIGatewayProxyEvent): string {
  return parseOrThrow(KeyIdSchema, event.pathParameters?.keyId, 'keyId', 'invalid_parameter');
}
