/**
 * The local stand-in for the portal's Cognito user pool (docs/local-stack.md, "The portal"):
 * `oidc-provider`, a certified OpenID provider, with the authorization code flow and PKCE, RS256
 * ID tokens shaped as Cognito's (`sub`, `email`, `email_verified`, `aud` the client id, `token_use`
 * `id`), signed by the library with the stack's own key; our pages for "Sign up", "Verify email"
 * and "Sign in" (plain HTML, no script, the portal's security headers); and Cognito's
 * AdminDeleteUser for the portal API's deleteAccount (`COGNITO_ENDPOINT`). Accounts: portal-accounts.ts.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { portalSecurityHeaders } from '../portal-headers.ts';
import { memorySessions } from './openid-sessions.ts';
import { AccountRefusal, type PortalAccounts } from './portal-accounts.ts';
import {
  escapeHtml,
  html,
  redirect,
  send,
  signInForm,
  signUpForm,
  verifyForm,
} from './portal-auth-pages.ts';
import { listen, readBody } from './server.ts';

/** The portal's app client on the local stack (as its app client id on a stage). */
export const LOCAL_PORTAL_CLIENT_ID = 'petstore-portal-local';

/** The local user pool's id, as deleteAccount's AdminDeleteUser names it. */
export const LOCAL_USER_POOL_ID = 'local_portal';

/** Options of {@link startOpenIdProvider}. */
export interface OpenIdProviderOptions {
  /** TCP port; 0 picks a free one. */
  readonly port: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** The portal's URL: the client's redirect and post-logout URI, e.g. `http://127.0.0.1:3200/`. */
  readonly portalUrl: string;
  readonly accounts: PortalAccounts;
  /** Where the signing key lives across starts. @default - a fresh key (in memory) */
  readonly directory?: string;
  /** Tells the developer a verification code. @default - a line on standard output */
  readonly onVerificationCode?: (email: string, code: string) => void;
}

/** A running stand-in. */
export interface LocalOpenIdProvider {
  /** The issuer, e.g. `http://127.0.0.1:3300` (discovery under `/.well-known/openid-configuration`). */
  readonly issuer: string;
  readonly clientId: string;
  /** The sign-up page. */
  readonly signUpUrl: string;
  /** Cognito's API (AdminDeleteUser) for the functions' `COGNITO_ENDPOINT`. */
  readonly cognitoEndpoint: string;
  close(): Promise<void>;
}

/**
 * Starts the stand-in on its port.
 * @throws PortInUseError when the port is taken (`PORTAL_AUTH_PORT`).
 */
export async function startOpenIdProvider(
  options: OpenIdProviderOptions,
): Promise<LocalOpenIdProvider> {
  const host = options.host ?? '127.0.0.1';
  let provider: Provider | undefined;
  const portalOrigin = new URL(options.portalUrl).origin;
  const headers = portalSecurityHeaders({ formAction: [portalOrigin] });
  const pages = new Pages(options, headers, () => provider as Provider);
  const server = await listen((request, response) => pages.handle(request, response), {
    port: options.port,
    host,
    portEnv: 'PORTAL_AUTH_PORT',
  });
  const issuer = `http://${host}:${server.port}`;
  provider = newProvider(issuer, options);
  return {
    issuer,
    clientId: LOCAL_PORTAL_CLIENT_ID,
    signUpUrl: `${issuer}/signup`,
    cognitoEndpoint: issuer,
    close: () => server.close(),
  };
}

/** The provider of `issuer`: one public client, PKCE, Cognito's claims, our pages. */
function newProvider(issuer: string, options: OpenIdProviderOptions): Provider {
  const { accounts, portalUrl } = options;
  const page = (title: string, body: string) => html(title, body);
  return new Provider(issuer, {
    clients: [
      {
        client_id: LOCAL_PORTAL_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [portalUrl],
        post_logout_redirect_uris: [portalUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    adapter: memorySessions(),
    jwks: { keys: [signingKey(options.directory)] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes: ['openid', 'email', 'offline_access'],
    claims: { openid: ['sub', 'token_use'], email: ['email', 'email_verified'] },
    // Cognito's ID tokens hold the email whatever the response type.
    conformIdTokenClaims: false,
    findAccount: (_ctx, sub) => {
      const account = accounts.find(sub);
      if (!account) return undefined;
      return {
        accountId: sub,
        claims: () => ({
          sub,
          email: account.email,
          email_verified: account.verified,
          token_use: 'id',
        }),
      };
    },
    // The portal is the stack's own client: its grant is given, no consent page.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { session, client, provider } = ctx.oidc;
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? session?.grantIdFor(client?.clientId ?? '');
      if (grantId) return provider.Grant.find(grantId);
      if (!session?.accountId || !client) return undefined;
      const grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email offline_access');
      await grant.save();
      return grant;
    },
    clientBasedCORS: (_ctx, origin) => origin === new URL(portalUrl).origin,
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          ctx.body = page(
            'Sign out',
            `<h1>Sign out</h1>${form}<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>`,
          );
        },
        postLogoutSuccessSource: (ctx) => {
          ctx.body = page(
            'Signed out',
            `<h1>Signed out</h1><p><a href="${portalUrl}">Back to the portal</a></p>`,
          );
        },
      },
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page(
        'Sign-in error',
        `<h1>Sign-in error</h1><p>${escapeHtml(String(out.error_description ?? out.error))}</p>`,
      );
    },
    ttl: {
      AccessToken: 3_600,
      IdToken: 3_600,
      Interaction: 600,
      Session: 86_400,
      Grant: 86_400,
      RefreshToken: 86_400,
    },
  });
}

/** The provider's RSA signing key as a private JWK, kept in `directory` across starts. */
function signingKey(directory: string | undefined) {
  const file = directory && join(directory, 'portal-auth-key.json');
  if (file && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = {
    ...privateKey.export({ format: 'jwk' }),
    kid: randomBytes(8).toString('hex'),
    use: 'sig',
    alg: 'RS256',
  };
  if (file) writeFileSync(file, JSON.stringify(jwk), { mode: 0o600 });
  return jwk;
}

/** Our pages and Cognito's AdminDeleteUser in front of the provider, which answers the rest. */
class Pages {
  constructor(
    private readonly options: OpenIdProviderOptions,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly provider: () => Provider,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    for (const [name, value] of Object.entries(this.headers)) response.setHeader(name, value);
    const { pathname, searchParams } = new URL(request.url ?? '/', 'http://localhost');
    const target = request.headers['x-amz-target'];
    if (request.method === 'POST' && typeof target === 'string')
      return this.cognito(target, request, response);
    const ours =
      pathname === '/signup' || pathname === '/verify' || /^\/interaction\/[\w-]+$/.test(pathname);
    // The provider reads its own requests' bodies (the token endpoint's among them).
    if (!ours) return this.provider().callback()(request, response);
    const form =
      request.method === 'POST' ? new URLSearchParams(String(await readBody(request))) : undefined;
    if (pathname === '/signup') return this.signUp(response, form);
    if (pathname === '/verify') return this.verify(response, form, searchParams.get('email') ?? '');
    return this.signIn(request, response, form);
  }

  /** "Sign up": an email and a password; the code is printed, and the verify page follows. */
  private signUp(response: ServerResponse, form: URLSearchParams | undefined): void {
    if (form) {
      try {
        const { account, code } = this.options.accounts.signUp(
          form.get('email') ?? '',
          form.get('password') ?? '',
        );
        const tell =
          this.options.onVerificationCode ??
          ((email, sent) => console.log(`Verification code for ${email}: ${sent}`));
        tell(account.email, code);
        redirect(response, `/verify?email=${encodeURIComponent(account.email)}`);
        return;
      } catch (error) {
        if (!(error instanceof AccountRefusal)) throw error;
        send(response, 400, html('Sign up', signUpForm(error.message, form.get('email') ?? '')));
        return;
      }
    }
    send(response, 200, html('Sign up', signUpForm('', '')));
  }

  /** "Verify email": the 6-digit code; then back to the portal, to sign in. */
  private verify(response: ServerResponse, form: URLSearchParams | undefined, email: string): void {
    if (form) {
      try {
        this.options.accounts.verify(form.get('email') ?? '', form.get('code') ?? '');
        redirect(response, this.options.portalUrl);
        return;
      } catch (error) {
        if (!(error instanceof AccountRefusal)) throw error;
        send(
          response,
          400,
          html('Verify email', verifyForm(error.message, form.get('email') ?? '')),
        );
        return;
      }
    }
    send(response, 200, html('Verify email', verifyForm('', email)));
  }

  /** "Sign in", the login prompt of an authorization request; its result back to the provider. */
  private async signIn(
    request: IncomingMessage,
    response: ServerResponse,
    form: URLSearchParams | undefined,
  ): Promise<void> {
    const provider = this.provider();
    const details = await provider.interactionDetails(request, response);
    if (details.prompt.name !== 'login') {
      // The grant is given (loadExistingGrant): nothing else to ask.
      return provider.interactionFinished(
        request,
        response,
        { consent: {} },
        { mergeWithLastSubmission: true },
      );
    }
    if (form) {
      try {
        const account = this.options.accounts.signIn(
          form.get('email') ?? '',
          form.get('password') ?? '',
        );
        return provider.interactionFinished(
          request,
          response,
          { login: { accountId: account.sub } },
          { mergeWithLastSubmission: false },
        );
      } catch (error) {
        if (!(error instanceof AccountRefusal)) throw error;
        send(
          response,
          400,
          html('Sign in', signInForm(details.uid, error.message, form.get('email') ?? '')),
        );
      }
    }
    send(response, 200, html('Sign in', signInForm(details.uid, '', '')));
  }

  /** Cognito's JSON API, AdminDeleteUser alone: the account removed, or UserNotFoundException. */
  private async cognito(
    target: string,
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<void> {
    const input = JSON.parse(String((await readBody(request)) ?? '{}')) as {
      UserPoolId?: string;
      Username?: string;
    };
    const type = (error: string, message: string) => ({ __type: error, message });
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(body));
    };
    if (target !== 'AWSCognitoIdentityProviderService.AdminDeleteUser') {
      return answer(400, type('UnknownOperationException', `${target} is not served locally`));
    }
    if (input.UserPoolId !== LOCAL_USER_POOL_ID) {
      return answer(
        400,
        type('ResourceNotFoundException', `User pool ${input.UserPoolId} does not exist.`),
      );
    }
    if (!this.options.accounts.delete(input.Username ?? '')) {
      return answer(400, type('UserNotFoundException', 'User does not exist.'));
    }
    answer(200, {});
  }
}
