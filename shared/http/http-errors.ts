/** Each error code's HTTP status, and `ApiError`, the answer of an error (docs/api.md, "Errors"). */

/** Every `code` of the public API and its status (uses: docs/openapi.yaml's `x-codes`). */
export const ERROR_CATALOGUE = {
  invalid_json: { status: 400 },
  invalid_body: { status: 400 },
  invalid_parameter: { status: 400 },
  invalid_idempotency_key: { status: 400 },
  unauthorized: { status: 401 },
  bad_request: { status: 400 },
  forbidden: { status: 403 },
  insufficient_scope: { status: 403 },
  not_found: { status: 404 },
  pet_not_found: { status: 404 },
  method_not_allowed: { status: 405 },
  idempotency_request_in_progress: { status: 409 },
  idempotency_key_reused: { status: 422 },
  payload_too_large: { status: 413 },
  request_timeout: { status: 408 },
  uri_too_long: { status: 414 },
  headers_too_large: { status: 431 },
  unsupported_media_type: { status: 415 },
  rate_limited: { status: 429 },
  quota_exceeded: { status: 429 },
  api_key_temporarily_banned: { status: 429 },
  internal_error: { status: 500 },
  bad_gateway: { status: 502 },
  service_unavailable: { status: 503 },
  gateway_timeout: { status: 504 },
} as const satisfies Record<string, { status: number }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The codes only the admin API answers, beside the public API's it shares: admin-openapi.yaml. */
export const ADMIN_ERROR_CATALOGUE = {
  key_not_found: { status: 404 },
  key_revoked: { status: 409 },
  key_changed: { status: 409 },
} as const satisfies Record<string, { status: number }>;

/** The codes only the portal API answers, beside those it shares: portal-openapi.yaml. */
export const PORTAL_ERROR_CATALOGUE = {
  email_not_verified: { status: 403 },
  key_limit_reached: { status: 409 },
} as const satisfies Record<string, { status: number }>;

type ServiceErrorCatalogues = typeof ADMIN_ERROR_CATALOGUE & typeof PORTAL_ERROR_CATALOGUE;
export type AnyErrorCode = ErrorCode | keyof ServiceErrorCatalogues;

const STATUS_OF: Readonly<Record<AnyErrorCode, { readonly status: number }>> = {
  ...ERROR_CATALOGUE,
  ...ADMIN_ERROR_CATALOGUE,
  ...PORTAL_ERROR_CATALOGUE,
};

/** The Error body of the spec; `Code` is the public API's codes unless said otherwise. */
export interface ErrorBody<Code extends AnyErrorCode = ErrorCode> {
  code: Code;
  message: string;
  status: number;
}

/**
 * An Error answer `{ code, message, status }`, middy-compatible (`statusCode`, `expose`).
 * @param message Names the offending field or parameter.
 * @param options `headers` to add to the response (e.g. `Allow`), `cause` for logs.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly statusCode: number;
  readonly expose = true;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: AnyErrorCode,
    message: string,
    options: { headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.statusCode = STATUS_OF[code].status;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody<AnyErrorCode> {
    return { code: this.code, message: this.message, status: this.statusCode };
  }
}
