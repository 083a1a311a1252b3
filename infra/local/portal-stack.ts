/**
 * The portal's back end on the local stack: the stand-in for its user pool (openid-provider.ts,
 * accounts in the stack's directory) and the portal API (portal-gateway.ts), with the functions'
 * settings pointing at the stand-in (docs/local-stack.md, "The portal").
 */
import { idTokenVerifier, userPoolClientOf } from '../../shared/cognito/id-token-verifier.ts';
import { readSettings } from '../../shared/settings.ts';
import {
  LOCAL_USER_POOL_ID,
  type LocalOpenIdProvider,
  startOpenIdProvider,
} from './openid-provider.ts';
import { PortalAccounts } from './portal-accounts.ts';
import { startPortalGateway } from './portal-gateway.ts';

/** Options of {@link startPortalBackEnd}; the ports are the settings' `PORTAL_*_PORT`. */
export interface PortalBackEndOptions {
  readonly host: string;
  /**
   * The portal's URL: the sign-in's redirect, the CORS origin.
   * @default `http://<host>:<PORTAL_PORT>/`
   */
  readonly portalUrl?: string;
  /** The stack's directory, where accounts and the signing key are kept. @default - in memory */
  readonly directory?: string;
}

/** The running back end: what the portal's `config.json` names. */
export interface PortalBackEnd
  extends Pick<LocalOpenIdProvider, 'issuer' | 'clientId' | 'signUpUrl'> {
  /** The portal API's base URL, e.g. `http://127.0.0.1:3400/portal`. */
  readonly apiUrl: string;
  close(): Promise<void>;
}

/**
 * Starts the stand-in, puts the portal functions' settings in the process's environment (where
 * the local gateways' functions read them: `PORTAL_ISSUER`, `PORTAL_JWKS_URI`, `PORTAL_CLIENT_ID`,
 * `PORTAL_USER_POOL_ID`, `PORTAL_ORIGIN`, `COGNITO_ENDPOINT`), then the portal API.
 * @throws PortInUseError when a port is taken.
 */
export async function startPortalBackEnd(options: PortalBackEndOptions): Promise<PortalBackEnd> {
  const settings = readSettings();
  const portalUrl = options.portalUrl ?? `http://${options.host}:${settings.PORTAL_PORT}/`;
  const provider = await startOpenIdProvider({
    port: settings.PORTAL_AUTH_PORT,
    host: options.host,
    portalUrl,
    accounts: new PortalAccounts(options.directory),
    directory: options.directory,
  });
  const origin = new URL(portalUrl).origin;
  Object.assign(process.env, {
    PORTAL_ISSUER: provider.issuer,
    // oidc-provider's JWKS endpoint, which its discovery document names.
    PORTAL_JWKS_URI: `${provider.issuer}/jwks`,
    PORTAL_CLIENT_ID: provider.clientId,
    PORTAL_USER_POOL_ID: LOCAL_USER_POOL_ID,
    PORTAL_ORIGIN: origin,
    COGNITO_ENDPOINT: provider.cognitoEndpoint,
  });
  let api: Awaited<ReturnType<typeof startPortalGateway>>;
  try {
    api = await startPortalGateway({
      port: settings.PORTAL_API_PORT,
      host: options.host,
      origin,
      verifier: idTokenVerifier(userPoolClientOf(readSettings())),
    });
  } catch (error) {
    await provider.close();
    throw error;
  }
  return {
    issuer: provider.issuer,
    clientId: provider.clientId,
    signUpUrl: provider.signUpUrl,
    apiUrl: api.url,
    close: async () => void (await Promise.all([api.close(), provider.close()])),
  };
}
