/** The `Idempotency-Key` header (draft-ietf-httpapi-idempotency-key-header-07), the fingerprint. */
import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { InvalidIdempotencyKeyError } from '../idempotency/idempotency-errors.ts';

/** Request header that names a create, so that retrying it is safe. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Response header of an answer replayed from the idempotency record (value `true`). */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

const VISIBLE_ASCII = new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

/** A Structured Field string (RFC 9651 §3.3.3): `"…"` with `\"` and `\\` escapes. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The request's Idempotency-Key, quoted (a Structured Field string) or not; `undefined`: none.
 * @throws InvalidIdempotencyKeyError (HTTP 400) when sent twice or not 1 to 255 visible ASCII.
 */
export function idempotencyKeyOf(event: APIGatewayProxyEvent): string | undefined {
  const name = IDEMPOTENCY_KEY_HEADER.toLowerCase();
  const single = event.headers?.[name];
  const values = event.multiValueHeaders?.[name] ?? (single === undefined ? [] : [single]);
  if (values.length === 0) return undefined;
  if (values.length > 1) {
    throw new InvalidIdempotencyKeyError(
      `${IDEMPOTENCY_KEY_HEADER}: is given ${values.length} times; send it once`,
    );
  }
  const value = (values[0] ?? '').trim();
  const key = value.startsWith('"')
    ? SF_STRING.exec(value)?.[1]?.replace(/\\(["\\])/g, '$1')
    : value;
  if (key === undefined || !VISIBLE_ASCII.test(key)) {
    throw new InvalidIdempotencyKeyError(
      `${IDEMPOTENCY_KEY_HEADER}: must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters, optionally as a quoted string`,
    );
  }
  return key;
}

/** SHA-256 (hex) of a parsed JSON body with keys sorted at every depth (docs/idempotency.md). */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(sortedKeys(body)))
    .digest('hex');
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}
