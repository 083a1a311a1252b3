/**
 * What every portal function is built on: the key service (functions/admin/composition-root.ts)
 * and the portal's door, its ID tokens checked against the settings' user pool client.
 */
import { idTokenVerifier, userPoolClientOf } from '../../shared/cognito/id-token-verifier.ts';
import type { PortalDoor } from '../../shared/http/portal-handler.ts';
import { readSettings, requiredSetting, type Settings } from '../../shared/settings.ts';

/**
 * The portal's door on the settings of `env`: `PORTAL_ISSUER`, `PORTAL_CLIENT_ID`,
 * `PORTAL_JWKS_URI` (optional) and `PORTAL_ORIGIN`, with the settings themselves.
 * @throws Error naming the variable when one is missing or invalid.
 */
export function portalDoorOf(env: NodeJS.ProcessEnv): { door: PortalDoor; settings: Settings } {
  const settings = readSettings(env);
  const door = {
    verifier: idTokenVerifier(userPoolClientOf(settings)),
    origin: requiredSetting(settings, 'PORTAL_ORIGIN'),
  };
  return { door, settings };
}
