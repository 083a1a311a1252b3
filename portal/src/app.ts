/**
 * The portal's frame: the header (the API reference, "Sign out"), the status and alert regions,
 * and the page the address's fragment names: the signed-out home, `#/` the keys, `#/keys/<id>`
 * one key. Fragments rather than paths, so that any static host serves the one page.
 */
import { html } from 'htm/preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { PortalApp } from './app-context.ts';
import type { PortalConfig } from './config.ts';
import { KeyPage } from './key-page.ts';
import { KeysPage } from './keys-page.ts';
import { PortalApiError, portalClient } from './portal-client.ts';
import type { Account, Session } from './session.ts';

/** Props of {@link App}. */
export interface AppProps {
  readonly config: PortalConfig;
  readonly session: Session;
  /** The account signed in when the page loaded, if any. */
  readonly account?: Account;
  /** A message for the signed-out home, e.g. why a sign-in failed. */
  readonly notice?: string;
}

/** The whole page. */
export function App(props: AppProps) {
  const { config, session } = props;
  const [account, setAccount] = useState(props.account);
  const [status, setStatus] = useState(props.notice ?? '');
  const [alert, setAlert] = useState('');
  const [route, setRoute] = useState(window.location.hash);

  useEffect(() => {
    const follow = () => {
      setRoute(window.location.hash);
      setStatus('');
      setAlert('');
    };
    window.addEventListener('hashchange', follow);
    session.onExpired(() => signedOut('Your session ended: sign in again.'));
    return () => window.removeEventListener('hashchange', follow);
  }, []);

  const signedOut = async (message: string) => {
    await session.forget();
    setAccount(undefined);
    // Home without a hashchange, which would clear the message.
    window.history.replaceState(null, '', '/');
    setRoute('');
    setStatus(message);
  };

  const app = useMemo<PortalApp | undefined>(() => {
    if (!account) return undefined;
    return {
      config,
      client: portalClient(
        config.portalApiUrl,
        () => account.idToken,
        () => void signedOut('Your session ended: sign in again.'),
      ),
      announce: (message) => {
        setAlert('');
        setStatus(message);
      },
      run: async (task) => {
        try {
          await task();
          return true;
        } catch (error) {
          if (!(error instanceof PortalApiError && error.status === 401)) {
            setAlert((error as Error).message);
          }
          return false;
        }
      },
      signedOut,
    };
  }, [account]);

  const keyId = route.match(/^#\/keys\/([\w-]+)$/)?.[1];
  return html`<header>
      <a class="brand" href="#/">Petstore developer portal</a>
      <nav aria-label="Portal">
        <a href=${config.apiReferenceUrl}>API reference</a>
        ${
          account &&
          html`<span class="email">${account.email}</span>
          <button type="button" onClick=${() => session.signOut()}>Sign out</button>`
        }
      </nav>
    </header>
    <main>
      <p role="status" class="status">${status}</p>
      <p role="alert" class="alert">${alert}</p>
      ${
        !app
          ? html`<${SignedOut} config=${config} session=${session} />`
          : keyId
            ? html`<${KeyPage} app=${app} keyId=${keyId} />`
            : html`<${KeysPage} app=${app} />`
      }
    </main>`;
}

/** Before signing in: what the portal is, "Sign up" and "Sign in". */
function SignedOut({ config, session }: Pick<AppProps, 'config' | 'session'>) {
  useEffect(() => {
    document.title = 'Petstore developer portal';
  }, []);
  return html`<h1>Keys for the Petstore API</h1>
    <p>${config.signUpUrl ? 'Sign up to get' : 'Sign in to get'} a Free key in a minute, see what
      each key used, and roll or revoke your own keys. Every change is on the record.</p>
    ${config.signUpUrl ? '' : html`<p>Accounts are by invitation: the invitation's email says how to sign in.</p>`}
    <div class="actions">
      ${config.signUpUrl && html`<a class="button" href=${config.signUpUrl}>Sign up</a>`}
      <button type="button" onClick=${() => session.signIn()}>Sign in</button>
    </div>`;
}
