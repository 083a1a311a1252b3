/**
 * The developer portal's security headers: one source for CloudFront's response headers policy
 * (infra/constructs/) and the local stack's servers of the portal and its sign-in pages
 * (infra/local/), so that what a browser enforces locally is what it enforces on a stage.
 *
 * Plain data and strings, no aws-cdk-lib: the CDK construct maps them onto
 * `ResponseHeadersPolicy`'s `securityHeadersBehavior` (CSP, HSTS, content type options, frame
 * options, referrer policy), the local servers send {@link portalSecurityHeaders} as they are.
 * Why each value: docs/portal.md, "Security headers".
 */

/** The origins a page of the portal may reach beyond its own (`'self'`). */
export interface PortalOrigins {
  /**
   * Origins the page's scripts call (`connect-src`), each `scheme://host[:port]` with no path:
   * the portal API, the OpenID provider's discovery, keys and token endpoints. On AWS these may
   * be CDK tokens (the REST API's URL, the user pool's domain); they are only concatenated.
   * @default - none: the page calls its own origin only
   */
  readonly connect?: readonly string[];
  /**
   * Origins a form of the page may submit to, or be redirected to after submitting (Chromium
   * applies `form-action` to the redirects too): the sign-in pages' way back to the portal.
   * @default - none: forms submit to the page's own origin only
   */
  readonly formAction?: readonly string[];
}

/**
 * HTTP Strict Transport Security: two years, subdomains included, not on the preload list (a
 * preload entry binds the whole registered domain, which is the operator's to decide, not the
 * portal's).
 */
export const STRICT_TRANSPORT_SECURITY = {
  maxAgeSeconds: 63_072_000,
  includeSubDomains: true,
  preload: false,
} as const;

/** `Referrer-Policy`: no page of the portal sends its URL (with an OAuth `code` in it) anywhere. */
export const REFERRER_POLICY = 'no-referrer';

/** `X-Content-Type-Options`: the browser trusts the `Content-Type` and never sniffs one. */
export const CONTENT_TYPE_OPTIONS = 'nosniff';

/** `X-Frame-Options`, for browsers older than CSP's `frame-ancestors`: never in a frame. */
export const FRAME_OPTIONS = 'DENY';

/**
 * The Content-Security-Policy of a portal page: scripts and styles from the page's own origin
 * only (no inline script, no `eval`, no inline `<style>` or `style` attribute), calls to its own
 * origin and the given ones, no frames, no plugins, no `<base>`, and never framed itself.
 *
 * @param origins What the page reaches beyond its own origin; each origin as given, after
 *   `'self'` in its directive.
 * @returns The policy's value, directives separated by `; `, e.g.
 *   `default-src 'none'; script-src 'self'; … connect-src 'self' https://api.example; …`.
 */
export function contentSecurityPolicy(origins: PortalOrigins = {}): string {
  const self = (extra: readonly string[] = []) => ["'self'", ...extra].join(' ');
  return [
    "default-src 'none'",
    `script-src ${self()}`,
    `style-src ${self()}`,
    `img-src ${self()} data:`,
    `font-src ${self()}`,
    `connect-src ${self(origins.connect)}`,
    `form-action ${self(origins.formAction)}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Every security header a portal page is served with, as the local servers send them and as
 * CloudFront's response headers policy adds them on a stage.
 *
 * @param origins As {@link contentSecurityPolicy}.
 * @returns Header names (lower case, as node:http sends them) to values.
 */
export function portalSecurityHeaders(
  origins: PortalOrigins = {},
): Readonly<Record<string, string>> {
  const { maxAgeSeconds, includeSubDomains, preload } = STRICT_TRANSPORT_SECURITY;
  return {
    'content-security-policy': contentSecurityPolicy(origins),
    'strict-transport-security': [
      `max-age=${maxAgeSeconds}`,
      ...(includeSubDomains ? ['includeSubDomains'] : []),
      ...(preload ? ['preload'] : []),
    ].join('; '),
    'x-content-type-options': CONTENT_TYPE_OPTIONS,
    'x-frame-options': FRAME_OPTIONS,
    'referrer-policy': REFERRER_POLICY,
  };
}
