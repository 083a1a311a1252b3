/**
 * The developer portal on the local stack: the site built in memory from portal/src at each start
 * (portal/build.ts), its `config.json`, and every answer with the portal's security headers
 * (infra/portal-headers.ts), the same values CloudFront adds on a stage.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildPortal } from '../../portal/build.ts';
import type { PortalConfig } from '../../portal/src/config.ts';
import { portalSecurityHeaders } from '../portal-headers.ts';
import { PortInUseError } from './local-stack-errors.ts';
import { type PortalBackEnd, startPortalBackEnd } from './portal-stack.ts';

/** Media types of the built site's files, by extension. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
};

/** Where {@link startPortalSite} listens and what its `config.json` says. */
export interface PortalSiteOptions {
  /** TCP port; 0 picks a free one (`PORTAL_PORT`). */
  readonly port: number;
  readonly host: string;
  /**
   * The page's configuration, once the stack's other parts listen: the OpenID provider needs the
   * portal's URL (its redirect URI) first. Requests wait for it.
   */
  readonly config: Promise<PortalConfig>;
}

/** The portal, served. */
export interface PortalSite {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Builds the portal and serves it: `/` the page, `/assets/…` its hashed files (cached for a
 * year), `/config.json`; anything else 404, a method other than GET or HEAD 405. The CSP's
 * `connect-src` names the config's OpenID provider and portal API origins.
 *
 * @throws PortInUseError when the port is taken; esbuild's Error when portal/src does not build.
 */
export async function startPortalSite({
  port,
  host,
  config,
}: PortalSiteOptions): Promise<PortalSite> {
  const files = new Map(
    (await buildPortal()).map(({ path, contents }) => [
      `/${path === 'index.html' ? '' : path}`,
      contents,
    ]),
  );
  const served = config.then((value) => ({
    config: new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`),
    headers: portalSecurityHeaders({
      connect: [new URL(value.authority).origin, new URL(value.portalApiUrl).origin],
    }),
  }));
  const server = createServer(async (request, response) => {
    const { config: configFile, headers } = await served;
    const { pathname } = new URL(request.url ?? '/', 'http://portal.invalid');
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return send(
        response,
        405,
        'text/plain; charset=utf-8',
        'Method not allowed\n',
        request.method,
      );
    }
    const contents = pathname === '/config.json' ? configFile : files.get(pathname);
    if (contents === undefined) {
      return send(response, 404, 'text/plain; charset=utf-8', 'Not found\n', request.method);
    }
    response.setHeader(
      'cache-control',
      pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    );
    const extension = pathname === '/' ? 'html' : (pathname.split('.').pop() ?? '');
    send(
      response,
      200,
      MEDIA_TYPES[extension] ?? 'application/octet-stream',
      contents,
      request.method,
    );
  });
  await new Promise<void>((listening, failed) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      failed(
        error.code === 'EADDRINUSE' ? new PortInUseError(port, 'the portal', 'PORTAL_PORT') : error,
      ),
    );
    server.listen(port, host, listening);
  });
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

/** Where {@link startLocalPortal} serves the portal, and what it links to. */
export interface LocalPortalOptions {
  readonly host: string;
  /** The portal's port (`PORTAL_PORT`); 0 picks a free one. */
  readonly port: number;
  /** The local gateway's API reference (`/docs`). */
  readonly apiReferenceUrl: string;
  /** The stack's directory, where the provider keeps its accounts. @default - in memory */
  readonly directory?: string;
}

/** The portal with its back end: the site, the OpenID provider and the portal API. */
export interface LocalPortal extends PortalSite {
  readonly backEnd: PortalBackEnd;
}

/**
 * Starts the portal's site, then its back end (portal-stack.ts) with the site's URL as the
 * sign-in's redirect and the API's CORS origin, and hands the site its `config.json`.
 *
 * @throws PortInUseError when a port is taken; esbuild's Error as {@link startPortalSite}.
 */
export async function startLocalPortal(options: LocalPortalOptions): Promise<LocalPortal> {
  let configure: (config: PortalConfig) => void = () => {};
  const config = new Promise<PortalConfig>((resolve) => {
    configure = resolve;
  });
  const site = await startPortalSite({ port: options.port, host: options.host, config });
  let backEnd: PortalBackEnd;
  try {
    backEnd = await startPortalBackEnd({
      host: options.host,
      portalUrl: site.url,
      directory: options.directory,
    });
  } catch (error) {
    await site.close();
    throw error;
  }
  configure({
    authority: backEnd.issuer,
    clientId: backEnd.clientId,
    portalApiUrl: backEnd.apiUrl,
    apiReferenceUrl: options.apiReferenceUrl,
    signUpUrl: backEnd.signUpUrl,
  });
  return {
    url: site.url,
    backEnd,
    close: async () => void (await Promise.all([backEnd.close(), site.close()])),
  };
}

/** Writes a whole answer; a HEAD gets the headers only. */
function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: string | Uint8Array,
  method: string | undefined,
): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(method === 'HEAD' ? undefined : body);
}
