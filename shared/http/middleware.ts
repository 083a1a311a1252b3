/**
 * The service's own middy middlewares: what middy's packages do not do for this contract.
 * Each is a factory returning named phase functions, as middy's own are.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../logger.ts';
import { ApiError } from './errors.ts';
import { jsonResponse } from './responses.ts';
import { isDependencyFailure, serviceUnavailable } from './unavailable.ts';

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** Largest accepted request body, in bytes (16 KiB). */
export const MAX_BODY_BYTES = 16 * 1024;

/** `application/json`, any case, with or without parameters (RFC 9110 §8.3.1). */
const JSON_MEDIA_TYPE = /^\s*application\/json\s*(?:;|$)/i;

/** The `charset` parameter of a Content-Type value, unquoted. */
const CHARSET_PARAMETER = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i;

/** Strict UTF-8: a malformed byte sequence throws instead of becoming U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Turns every error into the spec's Error body (petstore-spec.md, "Errors").
 *
 * An {@link ApiError} answers with its own code, status and headers. middy's JSON body parser
 * reports malformed JSON as 415; here it becomes 400 `invalid_json`, since the media type was
 * already checked by {@link jsonRequestBody}. A dependency that failed or did not answer in time
 * (see `isDependencyFailure`) answers 503 `service_unavailable` with `Retry-After`. Anything else
 * is logged with the request id and answered 500 `internal_error` with no detail.
 */
export function errorHandler(): HttpMiddleware {
  return {
    onError: function errorHandlerOnError(request) {
      const error = isDependencyFailure(request.error)
        ? unavailableStore(request.error)
        : request.error;
      if (error instanceof ApiError) {
        request.response = jsonResponse(error.statusCode, error.toBody(), error.headers);
        return;
      }
      if (isJsonParserError(error)) {
        const invalid = new ApiError('invalid_json', 'body: is empty or not valid JSON');
        request.response = jsonResponse(invalid.statusCode, invalid.toBody());
        return;
      }
      logger.error('Unexpected error', { error: error ?? undefined });
      const internal = new ApiError('internal_error', 'An unexpected error occurred.');
      request.response = jsonResponse(internal.statusCode, internal.toBody());
    },
  };
}

function unavailableStore(cause: unknown): ApiError {
  logger.warn('Store unavailable', { error: cause });
  return serviceUnavailable('The store is unavailable or did not answer in time.', cause);
}

function isJsonParserError(error: unknown): boolean {
  const cause = (error as { cause?: { package?: string } } | null)?.cause;
  return cause?.package === '@middy/http-json-body-parser';
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

/**
 * Refuses query parameters the operation does not take, and any parameter given more than once
 * (API Gateway passes every value in `multiValueQueryStringParameters` and only the last in
 * `queryStringParameters`, so a repeated one would otherwise be read silently as its last value):
 * 400 `invalid_parameter` naming the parameter.
 *
 * @param allowed The operation's query parameter names; empty for an operation that takes none.
 */
export function strictQuery(allowed: readonly string[]): HttpMiddleware {
  return {
    before: function strictQueryBefore(request) {
      const { queryStringParameters, multiValueQueryStringParameters } = request.event;
      for (const name of Object.keys(queryStringParameters ?? {})) {
        if (!allowed.includes(name)) {
          throw new ApiError('invalid_parameter', `${name}: is not allowed`);
        }
        const count = multiValueQueryStringParameters?.[name]?.length ?? 1;
        if (count > 1) {
          throw new ApiError('invalid_parameter', `${name}: is given ${count} times; give it once`);
        }
      }
    },
  };
}

/**
 * Adds fixed headers to every response of the operation, error responses included (for example
 * the deprecation headers of `getPet`).
 */
export function responseHeaders(headers: Readonly<Record<string, string>>): HttpMiddleware {
  // Also runs on errors, after errorHandler's onError (middy unwinds in reverse), so the answer exists.
  const responseHeadersAfter: NonNullable<HttpMiddleware['after']> = (request) => {
    if (request.response) {
      request.response.headers = { ...request.response.headers, ...headers };
    }
  };
  return { after: responseHeadersAfter, onError: responseHeadersAfter };
}
