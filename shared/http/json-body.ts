/** The request body: the service's guards and strict UTF-8 decoding, then middy's parser. */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiError } from './http-errors.ts';
import type { HttpMiddleware } from './middleware.ts';

/** Largest accepted request body, in bytes. */
export const MAX_BODY_BYTES = 16 * 1024;

/** `application/json`, any case, with or without parameters (RFC 9110 §8.3.1). */
const JSON_MEDIA_TYPE = /^\s*application\/json\s*(?:;|$)/i;

const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** Strict UTF-8: a malformed byte sequence throws instead of becoming U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Ours checks the media type; middy's stricter check would answer 415 wrongly (docs/architecture.md). */
const SKIP_MEDIA_TYPE_CHECK = { disableContentTypeCheck: true } as Parameters<
  typeof httpJsonBodyParser
>[0];

/**
 * The JSON body middleware (after the header normalizer): 415 unless `application/json` in UTF-8;
 * 400 `invalid_json` for no body, bad UTF-8 or JSON; 413 over `maxBytes`; then parsed.
 * @param maxBytes @default MAX_BODY_BYTES
 */
export function jsonBody(maxBytes = MAX_BODY_BYTES): HttpMiddleware {
  const parser = httpJsonBodyParser(SKIP_MEDIA_TYPE_CHECK);
  return {
    before: async function jsonBodyBefore(request) {
      decodeJsonBody(request.event, maxBytes);
      try {
        await parser.before?.(request);
      } catch (error) {
        // middy's only failure past the skipped media-type check: malformed JSON (its 415).
        throw new ApiError('invalid_json', 'body: is empty or not valid JSON', { cause: error });
      }
    },
  };
}

/** Guards `event`'s body and decodes it to text in place. */
function decodeJsonBody(event: APIGatewayProxyEvent, maxBytes: number): void {
  const contentType = event.headers?.['content-type'];
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type must be application/json, not ${contentType ? `"${contentType}"` : 'missing'}.`,
    );
  }
  const charsetMatch = CHARSET_PARAMETER.exec(contentType);
  const charset = charsetMatch?.[1] ?? charsetMatch?.[2];
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8') {
    throw new ApiError(
      'unsupported_media_type',
      `Content-Type charset must be utf-8, not "${charset}".`,
    );
  }
  if (!event.body)
    throw new ApiError('invalid_json', 'body: is required and must be a JSON object');
  const bytes = Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > maxBytes) {
    throw new ApiError(
      'payload_too_large',
      `body: is ${bytes.length} bytes; the limit is ${maxBytes} bytes.`,
    );
  }
  try {
    event.body = UTF8.decode(bytes);
  } catch {
    throw new ApiError('invalid_json', 'body: is not valid UTF-8');
  }
  event.isBase64Encoded = false;
}
