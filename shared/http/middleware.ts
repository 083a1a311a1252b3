/**
 * The service's own middy middlewares: what middy's packages do not do for this contract.
 * Each is a factory returning named phase functions, as middy's own are.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { logger } from '../logger.ts';
import { ApiError } from './errors.ts';
import { jsonResponse } from './responses.ts';

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** Largest accepted request body, in bytes (16 KiB). */
export const MAX_BODY_BYTES = 16 * 1024;

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Turns every error into the spec's Error body (petstore-spec.md, "Errors").
 *
 * An {@link ApiError} answers with its own code, status and headers. middy's JSON body parser
 * reports malformed JSON as 415; here it becomes 400 `invalid_json`, since the media type was
 * already checked by {@link jsonRequestBody}. Anything else is logged with the request id and
 * answered 500 `internal_error` with no detail.
 */
export function errorHandler(): HttpMiddleware {
  return {
    onError: function errorHandlerOnError(request) {
      const { error } = request;
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

function isJsonParserError(error: unknown): boolean {
  const cause = (error as { cause?: { package?: string } } | null)?.cause;
  return cause?.package === '@middy/http-json-body-parser';
}

/**
 * Guards a JSON request body before it is parsed: 415 `unsupported_media_type` unless the
 * Content-Type is `application/json` (or `application/*+json`), 413 `payload_too_large` over
 * {@link MAX_BODY_BYTES}. Expects lower-case header names (run after the header normalizer).
 */
export function jsonRequestBody(): HttpMiddleware {
  return {
    before: function jsonRequestBodyBefore(request) {
      const { headers, body, isBase64Encoded } = request.event;
      const contentType = headers?.['content-type'];
      if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
        throw new ApiError(
          'unsupported_media_type',
          `Content-Type must be application/json, not ${contentType ? `"${contentType}"` : 'missing'}.`,
        );
      }
      if (!body) throw new ApiError('invalid_json', 'body: is required and must be a JSON object');
      const bytes = Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8');
      if (bytes > MAX_BODY_BYTES) {
        throw new ApiError(
          'payload_too_large',
          `body: is ${bytes} bytes; the limit is ${MAX_BODY_BYTES} bytes.`,
        );
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
