/**
 * Reading the bearer token of a request (petstore-spec.md, "Authentication"; RFC 6750 §2.1).
 */

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token of an `Authorization: Bearer <token>` header value. The scheme is case-insensitive.
 *
 * @returns The token, or `undefined` when the header is missing, uses another scheme, or has no
 *   scheme or no token.
 */
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
