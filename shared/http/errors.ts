/** The error-code catalogue and `ApiError`, the HTTP answer of an error (docs/api.md, "Errors"). */

/** Every `code` value the API can answer with, its HTTP status and when it is used. */
export const ERROR_CATALOGUE = {
  invalid_json: {
    status: 400,
    description: 'The body is empty, not valid UTF-8, or not valid JSON.',
  },
  invalid_body: {
    status: 400,
    description: 'The body is JSON but not a valid NewPet (missing, unknown or invalid field).',
  },
  invalid_parameter: {
    status: 400,
    description:
      'A query or path parameter is invalid, or a query parameter is unknown or given twice.',
  },
  invalid_idempotency_key: {
    status: 400,
    description:
      'The Idempotency-Key header is not 1 to 255 visible ASCII characters (optionally as a quoted string), or is given twice.',
  },
  unauthorized: {
    status: 401,
    description:
      'The Authorization header is missing, not a Bearer token, or a malformed token; or the key is unknown, revoked or expired, or the token was rolled out and its grace is over.',
  },
  bad_request: {
    status: 400,
    description: 'API Gateway rejected the request for a reason no other code names.',
  },
  forbidden: { status: 403, description: 'The key may not call this operation.' },
  insufficient_scope: {
    status: 403,
    description:
      "The key's scopes do not cover this operation (a pets:read key calling createPet); see WWW-Authenticate.",
  },
  not_found: { status: 404, description: 'No route matches the path.' },
  pet_not_found: { status: 404, description: 'No pet has the requested id.' },
  method_not_allowed: {
    status: 405,
    description: 'The path exists but not with this method; see the Allow header.',
  },
  idempotency_request_in_progress: {
    status: 409,
    description:
      'A request with this Idempotency-Key is still being processed; retry after Retry-After.',
  },
  idempotency_key_reused: {
    status: 422,
    description: 'This Idempotency-Key was already used with a different request body.',
  },
  payload_too_large: { status: 413, description: 'The body is larger than 16 KiB.' },
  request_timeout: {
    status: 408,
    description: 'The client did not send the whole request in time.',
  },
  uri_too_long: { status: 414, description: 'The request target is longer than 8192 bytes.' },
  headers_too_large: {
    status: 431,
    description: 'The request line and headers together are larger than 16 KiB.',
  },
  unsupported_media_type: {
    status: 415,
    description: 'The body is not sent as application/json in UTF-8.',
  },
  rate_limited: {
    status: 429,
    description:
      "The key's per-minute or per-day limit is used up, or API Gateway throttled it; see Retry-After.",
  },
  quota_exceeded: {
    status: 429,
    description: "API Gateway's daily quota for the key (the edge backstop) is used up.",
  },
  api_key_temporarily_banned: {
    status: 429,
    description: 'The key kept sending after its 429s and is banned for a while; see Retry-After.',
  },
  internal_error: {
    status: 500,
    description: 'An unexpected error; it is logged with the request id.',
  },
  bad_gateway: {
    status: 502,
    description: 'A backend function failed or answered malformed output.',
  },
  service_unavailable: {
    status: 503,
    description:
      'A dependency (the store or the key check) failed or did not answer in time; retry after Retry-After.',
  },
  gateway_timeout: { status: 504, description: 'A backend function did not answer in time.' },
} as const satisfies Record<string, { status: number; description: string }>;

/** A machine-readable error code of the public API (snake_case). */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * The codes only the admin API answers with (docs/admin-openapi.yaml), beside the public API's
 * request codes (`invalid_json`, `invalid_body`, `invalid_parameter`, …) it shares.
 */
export const ADMIN_ERROR_CATALOGUE = {
  key_not_found: { status: 404, description: 'No key has this id.' },
  key_revoked: {
    status: 409,
    description: 'The key is revoked: it is not rolled and keeps its plan.',
  },
  key_changed: {
    status: 409,
    description: 'The key changed while this change was being made; nothing was changed: retry.',
  },
} as const satisfies Record<string, { status: number; description: string }>;

/** A machine-readable error code of either API (snake_case). */
export type AnyErrorCode = ErrorCode | keyof typeof ADMIN_ERROR_CATALOGUE;

/** Every code of either API with its status: the public catalogue and the admin API's own. */
const STATUS_OF: Readonly<Record<AnyErrorCode, { readonly status: number }>> = {
  ...ERROR_CATALOGUE,
  ...ADMIN_ERROR_CATALOGUE,
};

/** The Error body of the spec; `Code` is the public API's codes unless said otherwise. */
export interface ErrorBody<Code extends AnyErrorCode = ErrorCode> {
  code: Code;
  message: string;
  status: number;
}

/**
 * An Error answer: the error handler sends it as `{ code, message, status }`, the status from
 * {@link ERROR_CATALOGUE}; middy-compatible (`statusCode`, `expose`).
 *
 * @param code Catalogue code; fixes the HTTP status.
 * @param message Human-readable text naming the offending field or parameter.
 * @param options `headers` to add to the response (for example `Allow`), `cause` for logs.
 */
export class ApiError extends Error {
  readonly code: AnyErrorCode;
  readonly statusCode: number;
  readonly expose = true;
  readonly headers: Record<string, string>;

  constructor(
    code: AnyErrorCode,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = STATUS_OF[code].status;
    this.headers = options.headers ?? {};
  }

  /** The Error body of this error. */
  toBody(): ErrorBody<AnyErrorCode> {
    return { code: this.code, message: this.message, status: this.statusCode };
  }
}
