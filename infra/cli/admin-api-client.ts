/**
 * A client of a stage's (or the local stack's) admin API: JSON requests signed with SigV4 by the
 * AWS SDK's own signer (`@smithy/signature-v4`, SHA-256 from `@smithy/hash-node`) with the
 * operator's credentials, as API Gateway's AWS_IAM authorization requires (docs/operations.md,
 * "API keys"). The keys command is its user; a billing system does the same with the SDK.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AnyErrorCode, ErrorBody } from '../../shared/http/errors.ts';

/** The service name requests to API Gateway are signed for. */
const EXECUTE_API_SERVICE = 'execute-api';

/** How long one request may take before the client gives up, in milliseconds. */
const REQUEST_TIMEOUT_MS = 30_000;

/** Where the admin API is and who signs for the operator. */
export interface AdminApiClientOptions {
  /** The admin API's base URL, its stage included, e.g. `https://abc.execute-api…/admin`. */
  readonly baseUrl: string;
  /** The region its requests are signed for. */
  readonly region: string;
  /** The signer's credentials, or a provider of them (e.g. the SDK's default chain). */
  readonly credentials: ConstructorParameters<typeof SignatureV4>[0]['credentials'];
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** One request to the admin API. */
export interface AdminRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path under the base URL, its segments unencoded, e.g. `['keys', 'key_1', 'roll']`. */
  readonly path: readonly string[];
  /** Query parameters; undefined ones are left out. */
  readonly query?: Readonly<Record<string, string | undefined>>;
  /** JSON body. @default - none */
  readonly body?: unknown;
}

/** An answer of the admin API: its status and its JSON body (an Error body when >= 400). */
export interface AdminResponse<T = unknown> {
  readonly status: number;
  readonly body: T;
  /** The API Gateway request id (`x-amzn-RequestId`), for the operator's reports. */
  readonly requestId?: string;
}

/** The admin API refused or failed a request: its Error body, for the operator. */
export class AdminApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody<AnyErrorCode>,
  ) {
    super(body.message);
    this.name = 'AdminApiError';
  }
}

/**
 * A SigV4-signing client of the admin API.
 *
 * Requests carry `Content-Type: application/json`, `Host` and `X-Amz-Date` and (the signer's
 * default) `X-Amz-Content-SHA256`, all signed; a session token goes in `X-Amz-Security-Token`.
 */
export class AdminApiClient {
  private readonly signer: SignatureV4;
  private readonly base: URL;
  private readonly fetch: typeof fetch;

  constructor(options: AdminApiClientOptions) {
    this.base = new URL(options.baseUrl.replace(/\/?$/, '/'));
    this.fetch = options.fetch ?? globalThis.fetch;
    this.signer = new SignatureV4({
      credentials: options.credentials,
      region: options.region,
      service: EXECUTE_API_SERVICE,
      sha256: Hash.bind(null, 'sha256'),
    });
  }

  /** The base URL, for messages. */
  get url(): string {
    return this.base.href.replace(/\/$/, '');
  }

  /**
   * Sends a signed request and reads its JSON answer, whatever its status.
   *
   * @throws Error when the API cannot be reached or does not answer JSON in time.
   */
  async send<T = unknown>(request: AdminRequest): Promise<AdminResponse<T>> {
    const path = `${this.base.pathname}${request.path.map(encodeURIComponent).join('/')}`;
    const query = Object.fromEntries(
      Object.entries(request.query ?? {}).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    const body = request.body === undefined ? undefined : JSON.stringify(request.body);
    const signed = await this.signer.sign({
      method: request.method,
      protocol: this.base.protocol,
      hostname: this.base.hostname,
      port: this.base.port ? Number(this.base.port) : undefined,
      path,
      query,
      headers: {
        host: this.base.host,
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body,
    });
    const url = new URL(path, this.base);
    for (const [name, value] of Object.entries(query)) url.searchParams.append(name, value);
    const { host: _host, ...headers } = signed.headers;
    const response = await this.fetch(url, {
      method: request.method,
      headers,
      body,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text === '' ? undefined : JSON.parse(text)) as T,
      requestId: response.headers.get('x-amzn-requestid') ?? undefined,
    };
  }

  /**
   * Sends a signed request and returns its body when it succeeded (2xx).
   *
   * @throws AdminApiError with the API's Error body for an answer of 400 or more.
   */
  async call<T = unknown>(request: AdminRequest): Promise<T> {
    const { status, body } = await this.send<T>(request);
    if (status >= 400) throw new AdminApiError(status, body as ErrorBody<AnyErrorCode>);
    return body;
  }
}
