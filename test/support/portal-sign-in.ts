/**
 * An account of the local stack's stand-in for the portal's user pool, signed up, verified and
 * signed in over HTTP as a browser would (forms, cookies, redirects), through the authorization
 * code flow with PKCE: the ID token the portal gets, with no browser.
 */
import { createHash, randomBytes } from 'node:crypto';
import { LOCAL_PORTAL_CLIENT_ID } from '../../infra/local/openid-provider.ts';

/** Where the stand-in is and whom it redirects to. */
export interface PortalSignIn {
  /** The provider's issuer, e.g. `http://127.0.0.1:3300`. */
  readonly issuer: string;
  /** The portal's URL, the client's redirect URI. */
  readonly portalUrl: string;
  /** The code `npm start` printed for an email (its standard output, read again). */
  readonly codeFor: (email: string) => Promise<string>;
}

/** A browser's cookies across the provider's redirects, by name. */
class Cookies {
  private readonly jar = new Map<string, string>();

  keep(response: Response): void {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      this.jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }

  header(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** Signs up `email`, verifies it with the printed code. */
export async function signUp(portal: PortalSignIn, email: string, password: string): Promise<void> {
  const form = new URLSearchParams({ email, password });
  const signedUp = await fetch(`${portal.issuer}/signup`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
  });
  if (signedUp.status !== 303) throw new Error(`sign-up answered ${signedUp.status}`);
  const code = await portal.codeFor(email);
  const verified = await fetch(`${portal.issuer}/verify`, {
    method: 'POST',
    body: new URLSearchParams({ email, code }),
    redirect: 'manual',
  });
  if (verified.status !== 303) throw new Error(`verification answered ${verified.status}`);
}

/**
 * Signs in through the authorization code flow with PKCE, as the portal does.
 * @returns The ID token.
 * @throws Error when a step answers otherwise than the flow expects.
 */
export async function signIn(
  portal: PortalSignIn,
  email: string,
  password: string,
): Promise<string> {
  const cookies = new Cookies();
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(8).toString('hex');
  const authorize = new URL(`${portal.issuer}/auth`);
  for (const [name, value] of Object.entries({
    client_id: LOCAL_PORTAL_CLIENT_ID,
    redirect_uri: portal.portalUrl,
    response_type: 'code',
    scope: 'openid email',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  })) {
    authorize.searchParams.set(name, value);
  }
  const go = async (url: string, init: RequestInit = {}) => {
    const response = await fetch(new URL(url, portal.issuer), {
      ...init,
      redirect: 'manual',
      headers: { cookie: cookies.header(), ...init.headers },
    });
    cookies.keep(response);
    return response;
  };
  let response = await go(authorize.href);
  for (let step = 0; step < 10; step++) {
    const location = response.headers.get('location');
    if (!location)
      throw new Error(`sign-in stopped at ${response.status}: ${await response.text()}`);
    if (location.startsWith(portal.portalUrl)) {
      const code = new URL(location).searchParams.get('code');
      if (!code) throw new Error(`no code in ${location}`);
      return tokenFor(portal, code, verifier);
    }
    const interaction = /^\/interaction\/[\w-]+$/.test(new URL(location, portal.issuer).pathname);
    response = interaction
      ? await go(location, { method: 'POST', body: new URLSearchParams({ email, password }) })
      : await go(location);
  }
  throw new Error('sign-in did not come back to the portal');
}

/** The ID token of an authorization code (the token endpoint, PKCE's verifier). */
async function tokenFor(portal: PortalSignIn, code: string, verifier: string): Promise<string> {
  const response = await fetch(`${portal.issuer}/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: portal.portalUrl,
      client_id: LOCAL_PORTAL_CLIENT_ID,
      code_verifier: verifier,
    }),
  });
  const body = (await response.json()) as { id_token?: string };
  if (!body.id_token) throw new Error(`the token endpoint answered ${JSON.stringify(body)}`);
  return body.id_token;
}
