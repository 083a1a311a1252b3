/**
 * The portal's ID token check (shared/cognito/id-token-verifier.ts, issue 48, items 1 and 8): a
 * pool's JWKS served on a local port, tokens signed with jose (the tests' own keys, never the
 * stand-in's code), each refused for what makes it another pool's, another issuer's, another
 * client's, expired or no ID token; an unreachable JWKS is a 503, not a 401.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idTokenVerifier } from '../../shared/cognito/id-token-verifier.ts';
import { InvalidIdTokenError } from '../../shared/portal/portal-errors.ts';
import { StoreUnavailableError } from '../../shared/store-errors.ts';

const CLIENT_ID = 'portal-client';
const ISSUER = 'https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Pool';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
let pool: KeyPair;
let otherPool: KeyPair;
let jwksUri: string;
const server = createServer((_request, response) => {
  exportJWK(pool.publicKey).then((jwk) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [{ ...jwk, kid: 'pool', alg: 'RS256', use: 'sig' }] }));
  });
});

beforeAll(async () => {
  [pool, otherPool] = await Promise.all([generateKeyPair('RS256'), generateKeyPair('RS256')]);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** An ID token as the pool issues one, with `claims` changed, signed by `key` (the pool's). */
function idToken(claims: JWTPayload = {}, key: KeyPair = pool, expiresIn = '1h') {
  return new SignJWT({
    sub: 'account-1',
    email: 'dev@example.com',
    email_verified: true,
    token_use: 'id',
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'pool' })
    .setIssuer(typeof claims.iss === 'string' ? claims.iss : ISSUER)
    .setAudience(typeof claims.aud === 'string' ? claims.aud : CLIENT_ID)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key.privateKey);
}

describe('the ID token check', () => {
  it('names the account of a valid ID token', async () => {
    const verifier = idTokenVerifier({ issuer: ISSUER, clientId: CLIENT_ID, jwksUri });

    expect(await verifier.verify(await idToken())).toEqual({
      sub: 'account-1',
      email: 'dev@example.com',
      emailVerified: true,
    });
    expect(await verifier.verify(await idToken({ email_verified: false }))).toMatchObject({
      emailVerified: false,
    });
  });

  it.each([
    ['another pool (signed by its key)', () => idToken({}, otherPool)],
    ['another issuer', () => idToken({ iss: 'https://cognito-idp.us-east-1.amazonaws.com/other' })],
    ['another client', () => idToken({ aud: 'another-client' })],
    ['an expired token', () => idToken({}, pool, '-1m')],
    ['an access token', () => idToken({ token_use: 'access' })],
    ['no JWT at all', async () => 'not.a.jwt'],
  ])('refuses %s as an invalid ID token (401)', async (_, token) => {
    const verifier = idTokenVerifier({ issuer: ISSUER, clientId: CLIENT_ID, jwksUri });

    await expect(verifier.verify(await token())).rejects.toThrow(InvalidIdTokenError);
  });

  it("answers 503 when the pool's keys cannot be read, not 401", async () => {
    const verifier = idTokenVerifier({
      issuer: ISSUER,
      clientId: CLIENT_ID,
      jwksUri: 'http://127.0.0.1:9/jwks',
    });

    await expect(verifier.verify(await idToken())).rejects.toThrow(StoreUnavailableError);
  });
});
