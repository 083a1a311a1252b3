/**
 * The client of a stage's (or the local stack's) admin API, typed from docs/admin-openapi.yaml as
 * the tests' client is from docs/openapi.yaml: openapi-fetch over the types openapi-typescript
 * generates from the document (`npm run generate:admin-client`, into infra/cli/generated/; `npm
 * test` runs it before the type check), so that a path, method, body or answer the document lacks
 * fails the type check. Each request is signed with SigV4 by the AWS SDK's own signer
 * (`@smithy/signature-v4`, SHA-256 from `@smithy/hash-node`) with the operator's credentials, as
 * API Gateway's AWS_IAM authorization requires (docs/operations.md, "The admin API"). The keys
 * command is its user; a billing system does the same with the SDK.
 */
import { parseQueryString } from '@smithy/core/transport';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './generated/admin-api.d.ts';

/** The service name requests to API Gateway are signed for. */
const EXECUTE_API_SERVICE = 'execute-api';

/** How long one request may take before the client gives up, in milliseconds. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A client of every operation of docs/admin-openapi.yaml, typed by its paths. */
export type AdminApiClient = Client<paths>;

/** The document's schemas by name (`AdminSchemas['ApiGatewayStep']`, …). */
export type AdminSchemas = components['schemas'];

/** The JSON body an operation takes, by operationId (`AdminRequestBody<'setKeyPlan'>`, …). */
export type AdminRequestBody<OperationId extends keyof operations> = NonNullable<
  operations[OperationId]['requestBody']
>['content']['application/json'];

/** Who signs, and for which region. */
export interface SigV4Options {
  /** The region its requests are signed for. */
  readonly region: string;
  /** The signer's credentials, or a provider of them (e.g. the SDK's default chain). */
  readonly credentials: ConstructorParameters<typeof SignatureV4>[0]['credentials'];
}

/** Where the admin API is and who signs for the operator. */
export interface AdminApiClientOptions extends SigV4Options {
  /** The admin API's base URL, its stage included, e.g. `https://abc.execute-api…/admin`. */
  readonly baseUrl: string;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/**
 * A typed, SigV4-signing client of the admin API. Every request accepts JSON and gives up after
 * `REQUEST_TIMEOUT_MS`; its answer is openapi-fetch's `{ data }` (2xx) or `{ error }` (the Error
 * body), whatever the status.
 */
export function adminApiClient(options: AdminApiClientOptions): AdminApiClient {
  const send = options.fetch ?? globalThis.fetch;
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { Accept: 'application/json' },
    fetch: (request) => send(request, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
  });
  client.use(sigV4Middleware(options));
  return client;
}

/**
 * An openapi-fetch middleware that signs each request with SigV4 for API Gateway (`execute-api`):
 * method, path, query, body and every header the request carries, with `Host` and `X-Amz-Date`
 * added and signed, `X-Amz-Content-SHA256` (the body's hash) and a session token
 * (`X-Amz-Security-Token`) when the credentials have one. `Host` is signed but left for `fetch`
 * to send.
 */
export function sigV4Middleware({ region, credentials }: SigV4Options): Middleware {
  const signer = new SignatureV4({
    credentials,
    region,
    service: EXECUTE_API_SERVICE,
    sha256: Hash.bind(null, 'sha256'),
  });
  return {
    async onRequest({ request }) {
      const url = new URL(request.url);
      const body = request.body === null ? undefined : await request.text();
      const signed = await signer.sign({
        method: request.method,
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        path: url.pathname,
        query: parseQueryString(url.search),
        headers: { ...Object.fromEntries(request.headers), host: url.host },
        body,
      });
      const { host: _host, ...headers } = signed.headers;
      return new Request(request.url, {
        method: request.method,
        headers,
        body,
        signal: request.signal,
      });
    },
  };
}
