/**
 * The local portal's server (infra/local/portal-site.ts) over HTTP, with no browser: every answer
 * carries the portal's security headers, config.json is served as given, the page loads only
 * files of its own (no inline script or style), and what is not the site's is 404 or 405.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PortalSite, startPortalSite } from '../../infra/local/portal-site.ts';
import { portalSecurityHeaders } from '../../infra/portal-headers.ts';
import type { PortalConfig } from '../../portal/src/config.ts';

const CONFIG: PortalConfig = {
  authority: 'http://127.0.0.1:3301',
  clientId: 'petstore-portal-local',
  portalApiUrl: 'http://127.0.0.1:3401/portal',
  apiReferenceUrl: 'http://127.0.0.1:3001/docs',
  signUpUrl: 'http://127.0.0.1:3301/signup',
};

let site: PortalSite;
beforeAll(async () => {
  site = await startPortalSite({ port: 0, host: '127.0.0.1', config: Promise.resolve(CONFIG) });
}, 60_000);
afterAll(() => site.close());

const get = (path: string, init?: RequestInit) => fetch(new URL(path, site.url), init);

describe('the local portal', () => {
  it('serves the page with the security headers, its CSP reaching the provider and the portal API only', async () => {
    const response = await get('/');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const [name, value] of Object.entries(portalSecurityHeaders())) {
      if (name !== 'content-security-policy') expect(response.headers.get(name)).toBe(value);
    }
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("connect-src 'self' http://127.0.0.1:3301 http://127.0.0.1:3401;");
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toContain('unsafe');
  });

  it('loads only files it serves itself: every script and stylesheet has a source, none is inline', async () => {
    const page = await (await get('/')).text();
    const scripts = [...page.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    const sources = [
      ...scripts.map(([, attributes]) => /src="([^"]+)"/.exec(attributes ?? '')?.[1]),
      ...[...page.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map(([, href]) => href),
    ];

    expect(scripts.map(([, , body]) => body)).toEqual(['']);
    expect(page).not.toMatch(/<style|style="|\son[a-z]+="/);
    expect(sources).toHaveLength(2);
    for (const source of sources) {
      const asset = await get(source ?? '');
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves config.json as npm start hands it over, never cached', async () => {
    const response = await get('/config.json');

    expect(await response.json()).toEqual(CONFIG);
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('answers 404 to a path that is not the site, and 405 to a method other than GET or HEAD, with the headers', async () => {
    const missing = await get('/keys');
    const posted = await get('/', { method: 'POST' });
    const head = await get('/config.json', { method: 'HEAD' });

    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-frame-options')).toBe('DENY');
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
