/**
 * The portal's runtime configuration, `GET /config.json` beside the page: written by the pipeline
 * from the stage's outputs on AWS, served by `npm start` locally (infra/local/portal-site.ts).
 */
import * as v from 'valibot';

const Url = v.pipe(v.string(), v.url());

/** `config.json`: where the page signs in and what it calls. */
export const PortalConfigSchema = v.object({
  /** The OpenID provider's issuer (the user pool's, or the local stand-in's). */
  authority: Url,
  /** The portal's app client id (no secret). */
  clientId: v.pipe(v.string(), v.minLength(1)),
  /** The portal API's base URL, ending in `/portal`. */
  portalApiUrl: Url,
  /** The Petstore API's reference. */
  apiReferenceUrl: Url,
  /** The provider's sign-up page; absent when the stage takes accounts by invitation only. */
  signUpUrl: v.optional(Url),
});

/** A checked `config.json`. */
export type PortalConfig = v.InferOutput<typeof PortalConfigSchema>;

/**
 * Reads `/config.json`.
 *
 * @throws Error naming the field when the file is missing or not a configuration.
 */
export async function loadConfig(): Promise<PortalConfig> {
  const response = await fetch('/config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json: answered ${response.status}`);
  const result = v.safeParse(PortalConfigSchema, await response.json());
  if (!result.success) {
    const [issue] = result.issues;
    throw new Error(`config.json: ${v.getDotPath(issue) ?? 'the file'}: ${issue.message}`);
  }
  return result.output;
}
