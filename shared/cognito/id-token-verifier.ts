/**
 * The `IdTokenVerifier` port on aws-jwt-verify (`JwtRsaVerifier`): the same check in the portal's
 * functions and in the local gateway's stand-in for API Gateway's Cognito authorizer.
 */
import { JwtRsaVerifier } from 'aws-jwt-verify';
import { FetchError, JwksNotAvailableInCacheError } from 'aws-jwt-verify/error';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { InvalidIdTokenError } from '../portal/portal-errors.ts';
import type { IdTokenVerifier, PortalAccount } from '../portal/portal-ports.ts';
import { requiredSetting, type Settings } from '../settings.ts';
import { StoreUnavailableError } from '../store-errors.ts';

/** How long fetching the pool's JWKS may take, in milliseconds. */
const JWKS_TIMEOUT_MS = 3_000;

/** Where a user pool's tokens come from and for whom. */
export interface UserPoolClient {
  /** The pool's issuer, e.g. `https://cognito-idp.<region>.amazonaws.com/<pool id>`. */
  readonly issuer: string;
  /** The portal's app client id: every token's `aud`. */
  readonly clientId: string;
  /** @default `<issuer>/.well-known/jwks.json` (Cognito's) */
  readonly jwksUri?: string;
}

/** The portal's user pool client of the settings' `PORTAL_ISSUER`, `PORTAL_CLIENT_ID`, `PORTAL_JWKS_URI`. */
export function userPoolClientOf(settings: Settings): UserPoolClient {
  return {
    issuer: requiredSetting(settings, 'PORTAL_ISSUER'),
    clientId: requiredSetting(settings, 'PORTAL_CLIENT_ID'),
    ...(settings.PORTAL_JWKS_URI && { jwksUri: settings.PORTAL_JWKS_URI }),
  };
}

/**
 * Verifies RS256 ID tokens of `client`'s pool and app client (`token_use` `id`, not expired),
 * fetching the JWKS with `fetch` (http on the local stack, https on AWS), cached.
 */
export function idTokenVerifier(client: UserPoolClient): IdTokenVerifier {
  const jwksCache = new SimpleJwksCache({
    fetcher: {
      async fetch(uri: string) {
        const response = await fetch(uri, { signal: AbortSignal.timeout(JWKS_TIMEOUT_MS) }).catch(
          (error: Error) => {
            throw new FetchError(uri, error.message);
          },
        );
        if (!response.ok) throw new FetchError(uri, `status ${response.status}`);
        return response.arrayBuffer();
      },
    },
  });
  const verifier = JwtRsaVerifier.create(
    {
      issuer: client.issuer,
      audience: client.clientId,
      jwksUri: client.jwksUri ?? `${client.issuer}/.well-known/jwks.json`,
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'id') throw new Error('not an ID token');
      },
    },
    { jwksCache },
  );
  return {
    async verify(token: string): Promise<PortalAccount> {
      let payload: Awaited<ReturnType<typeof verifier.verify>>;
      try {
        payload = await verifier.verify(token);
      } catch (error) {
        if (error instanceof FetchError || error instanceof JwksNotAvailableInCacheError) {
          throw new StoreUnavailableError("The user pool's keys could not be read.", {
            cause: error,
          });
        }
        throw new InvalidIdTokenError({ cause: error });
      }
      const { sub, email, email_verified: verified } = payload;
      if (typeof sub !== 'string' || typeof email !== 'string') throw new InvalidIdTokenError();
      return { sub, email, emailVerified: verified === true || verified === 'true' };
    },
  };
}
