/** Reading the bearer token of a request (docs/openapi.yaml, `bearerAuth`; RFC 6750 §2.1). */

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The token of an `Authorization: Bearer <token>` value (scheme in any case), or `undefined`. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization?.match(BEARER)?.[1];
}

/** The `Authorization` header of a header map whose names may have any case. */
export function authorizationHeader(
  headers: Readonly<Record<string, string | undefined>> | null | undefined,
): string | undefined {
  const name = Object.keys(headers ?? {}).find((key) => key.toLowerCase() === 'authorization');
  return name ? headers?.[name] : undefined;
}

/**
 * Every `Authorization` value of a request (names in any case), from its multi-value header map,
 * else its single-value map, in the order sent: more than one is ambiguous.
 */
export function authorizationValues(event: {
  headers?: Readonly<Record<string, string | undefined>> | null;
  multiValueHeaders?: Readonly<Record<string, readonly string[] | undefined>> | null;
}): string[] {
  const lists = Object.entries(event.multiValueHeaders ?? {}).filter(
    ([name]) => name.toLowerCase() === 'authorization',
  );
  if (lists.length > 0) return lists.flatMap(([, values]) => values ?? []);
  const single = authorizationHeader(event.headers);
  return single === undefined ? [] : [single];
}
