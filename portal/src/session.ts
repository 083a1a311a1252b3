/**
 * Sign-in with the authorization code flow and PKCE (oidc-client-ts), against the stage's user
 * pool or the local stand-in. The user (ID token, refresh token) lives in memory only: a reload
 * signs in again through the provider's session. Only the flow's own state across the redirect
 * (state, PKCE verifier) uses sessionStorage.
 */
import { InMemoryWebStorage, type User, UserManager, WebStorageStateStore } from 'oidc-client-ts';
import type { PortalConfig } from './config.ts';

/** The signed-in account, as the page needs it. */
export interface Account {
  /** The bearer of the portal API. */
  readonly idToken: string;
  readonly email: string;
}

/** The page's sign-in: start, finish after the redirect, end. */
export interface Session {
  /** The account, once signed in. */
  account(): Promise<Account | undefined>;
  /** Sends the browser to the provider's sign-in. */
  signIn(): Promise<void>;
  /**
   * Finishes a sign-in when the page is the provider's redirect back (`?code=…&state=…`), and
   * takes the code out of the address bar. A redirect this page did not start (no state of its
   * own, e.g. after the provider's sign-up) is dropped: the visitor signs in.
   *
   * @throws Error when the provider refused (`?error=…`).
   */
  finishSignIn(): Promise<void>;
  /** Forgets the account here, then ends the provider's session (a redirect back to the portal). */
  signOut(): Promise<void>;
  /** Forgets the account here only: its token was refused or has expired. */
  forget(): Promise<void>;
  /** `listener` runs when the ID token expires. */
  onExpired(listener: () => void): void;
}

/** @param config The portal's configuration (authority, client id). */
export function createSession(config: PortalConfig): Session {
  const home = new URL('/', window.location.href).href;
  const manager = new UserManager({
    authority: config.authority,
    client_id: config.clientId,
    redirect_uri: home,
    post_logout_redirect_uri: home,
    response_type: 'code',
    scope: 'openid email',
    userStore: new WebStorageStateStore({ store: new InMemoryWebStorage() }),
    stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
    // A renewal through a hidden frame is refused by the CSP (no frames); a refresh token, where
    // the provider issues one, renews on expiry instead (onExpired).
    automaticSilentRenew: false,
  });

  const accountOf = (user: User | null): Account | undefined =>
    user && !user.expired && user.id_token
      ? { idToken: user.id_token, email: String(user.profile.email ?? '') }
      : undefined;

  return {
    account: async () => accountOf(await manager.getUser()),
    signIn: () => manager.signinRedirect(),
    async finishSignIn() {
      const parameters = new URLSearchParams(window.location.search);
      if (!parameters.has('code') && !parameters.has('error')) return;
      const state = parameters.get('state');
      const ours = state !== null && (await manager.settings.stateStore.get(state)) !== null;
      window.history.replaceState(null, '', `/${window.location.hash}`);
      if (ours || parameters.has('error')) {
        await manager.signinCallback(`${home}?${parameters}`);
      }
    },
    async signOut() {
      const user = await manager.getUser();
      await manager.removeUser();
      const metadata = await manager.metadataService.getMetadata();
      if (metadata.end_session_endpoint) {
        await manager.signoutRedirect({ id_token_hint: user?.id_token });
        return;
      }
      // Cognito's managed login ends its session at /logout on the authorization endpoint's host
      // and names no end_session_endpoint in its discovery document.
      const logout = new URL('/logout', metadata.authorization_endpoint);
      logout.search = new URLSearchParams({
        client_id: config.clientId,
        logout_uri: home,
      }).toString();
      window.location.assign(logout);
    },
    forget: () => manager.removeUser(),
    onExpired(listener) {
      manager.events.addAccessTokenExpired(async () => {
        const user = await manager.getUser();
        if (user?.refresh_token) {
          try {
            await manager.signinSilent();
            return;
          } catch {}
        }
        await manager.removeUser();
        listener();
      });
    },
  };
}
