/**
 * The portal API's typed client: openapi-fetch over the types `npm run generate:portal-client`
 * writes into generated/ from docs/portal-openapi.yaml (git-ignored), with the account's ID token
 * as bearer on every request.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './generated/portal-api.d.ts';

/** The JSON body of an answer of the generated types. */
type Json<Answer> = Answer extends { content: { 'application/json': infer Body } } ? Body : never;

/** A key of the account, as the portal API answers it. */
export type PortalKey = components['schemas']['PortalKey'];
/** A standard plan and its limits. */
export type Plan = components['schemas']['Plan'];
/** getAccount's answer: the account, its active keys and their limit, the plans. */
export type AccountAnswer = Json<operations['getAccount']['responses'][200]>;
/** getPortalKeyUsage's answer: 30 days, newest first, and the windows now. */
export type UsageAnswer = Json<operations['getPortalKeyUsage']['responses'][200]>;
/** The portal API's Error body. */
export type ApiErrorBody = components['schemas']['Error'];
/** The typed client. */
export type PortalClient = ReturnType<typeof createClient<paths>>;

/** An answer of the portal API that was an Error body; its message is the API's. */
export class PortalApiError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(body: ApiErrorBody) {
    super(body.message);
    this.name = 'PortalApiError';
    this.code = body.code;
    this.status = body.status;
  }
}

/**
 * @param baseUrl The portal API's base URL (config.json's `portalApiUrl`, ending in `/portal`).
 * @param idToken The bearer: the signed-in account's ID token.
 * @param onUnauthorized Runs on a 401 answer (the token expired or was refused): the page signs out.
 */
export function portalClient(
  baseUrl: string,
  idToken: () => string,
  onUnauthorized: () => void,
): PortalClient {
  const client = createClient<paths>({ baseUrl });
  const bearer: Middleware = {
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${idToken()}`);
      return request;
    },
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  };
  client.use(bearer);
  return client;
}

/**
 * The data of an openapi-fetch answer, or its Error body thrown.
 *
 * @throws PortalApiError for an Error body; Error for an answer of neither kind.
 */
export function dataOf<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.data !== undefined) return answer.data;
  const body = answer.error as Partial<ApiErrorBody> | undefined;
  if (body && typeof body.code === 'string' && typeof body.message === 'string') {
    throw new PortalApiError(body as ApiErrorBody);
  }
  throw new Error(`The portal API answered ${answer.response.status}.`);
}

/**
 * Every key of the account, following listPortalKeys's `Link: <…>; rel="next"` to the end.
 *
 * @throws PortalApiError as {@link dataOf}.
 */
export async function allKeys(client: PortalClient): Promise<PortalKey[]> {
  const keys: PortalKey[] = [];
  let cursor: string | undefined;
  do {
    const answer = await client.GET('/keys', { params: { query: { limit: 100, cursor } } });
    keys.push(...dataOf(answer).keys);
    cursor = nextCursor(answer.response.headers.get('link'));
  } while (cursor !== undefined);
  return keys;
}

/** The `cursor` of a `Link` header's `rel="next"` target, if it has one. */
function nextCursor(link: string | null): string | undefined {
  const target = link?.match(/<([^>]+)>\s*;\s*rel="next"/)?.[1];
  return target
    ? (new URL(target, 'http://link.invalid').searchParams.get('cursor') ?? undefined)
    : undefined;
}
