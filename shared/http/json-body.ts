/**
 * The request body of the operations that read one (createPet): the service's guards, then middy's
 * JSON body parser. Only their functions import this module, so only they bundle the parser.
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { ApiError } from './errors.ts';
import type { HttpMiddleware } from './middleware.ts';

/** Largest accepted request body, in bytes (16 KiB). */
export const MAX_BODY_BYTES = 16 * 1024;

/** `application/json`, any case, with or without parameters (RFC 9110 §8.3.1). */
const JSON_MEDIA_TYPE = /^\s*application\/json\s*(?:;|$)/i;

/** The `charset` parameter of a Content-Type value, unquoted. */
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** Strict UTF-8: a malformed byte sequence throws instead of becoming U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * jsonRequestBody has already checked the media type; middy's own check is stricter (case-sensitive,
 * no space before parameters) and its 415 would reach the client as 400 invalid_json.
 * `disableContentTypeCheck` is a documented option that the 6.x type declarations lack.
 */
const SKIP_MEDIA_TYPE_CHECK = { disableContentTypeCheck: true } as Parameters<
  typeof httpJsonBodyParser
>[0];

/**
 * The body middlewares of an operation that takes a JSON body (`HttpHandlerOptions.body`):
 * {@link jsonRequestBody}, then middy's JSON body parser, whose malformed-JSON error the error
 * handler answers 400 `invalid_json`.
 */
export function jsonBody(): HttpMiddleware[] {
  return [jsonRequestBody(), httpJsonBodyParser(SKIP_MEDIA_TYPE_CHECK)];
}

/**
 * Guards a JSON request body before it is parsed, and decodes it:
 *
 * - 415 `unsupported_media_type` unless the Content-Type is `application/json`, and when it names
 *   a `charset` other than UTF-8 (RFC 8259 §8.1: JSON exchanged between systems is UTF-8);
 * - 400 `invalid_json` when there is no body, 413 `payload_too_large` over {@link MAX_BODY_BYTES};
 * - 400 `invalid_json` when the bytes are not well-formed UTF-8: never stored with U+FFFD in
 *   place of what the client sent.
 *
 * API Gateway passes bodies base64-encoded (the API's binary media types are `*\/*`), so the
 * function sees the bytes the client sent; the body is replaced by its decoded text for middy's
 * JSON body parser. Expects lower-case header names (run after the header normalizer).
 */
export function jsonRequestBody(): HttpMiddleware {
  return {
    before: function jsonRequestBodyBefore(request) {
      const { event } = request;
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
      if (bytes.length > MAX_BODY_BYTES) {
        throw new ApiError(
          'payload_too_large',
          `body: is ${bytes.length} bytes; the limit is ${MAX_BODY_BYTES} bytes.`,
        );
      }
      try {
        event.body = UTF8.decode(bytes);
      } catch {
        throw new ApiError('invalid_json', 'body: is not valid UTF-8');
      }
      event.isBase64Encoded = false;
    },
  };
}
