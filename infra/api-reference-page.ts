/**
 * The interactive API reference: Swagger UI (npm package `swagger-ui-dist`) rendering
 * docs/openapi.yaml, fully offline. One page for the local stack (infra/local/api-reference.ts,
 * at `/docs`) and for a stage's portal (infra/constructs/portal-website.ts, at `/reference/`).
 *
 * Every asset is Swagger UI's own, and a Content-Security-Policy of `'self'` keeps the browser
 * from loading anything else (no CDN, no font service, no validator badge).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';
import { REPOSITORY_ROOT } from './repository.ts';

const DOCUMENT = resolve(REPOSITORY_ROOT, 'docs/openapi.yaml');

/** The directory of `swagger-ui-dist`, whose files the page loads. */
export const SWAGGER_UI = dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

/** Swagger UI's files that the page loads, with their media types. */
export const API_REFERENCE_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/** The page's Content-Security-Policy: its own origin only; Swagger UI sets style attributes. */
export const API_REFERENCE_CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The page, loading Swagger UI's files and `init.js` from `base` (e.g. `/docs`).
 *
 * @param title The page's title, e.g. `Petstore API reference (local)`.
 */
export function apiReferencePage(base: string, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title}</title>
  <link rel="stylesheet" href="${base}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${base}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${base}/swagger-ui-bundle.js"></script>
  <script src="${base}/init.js"></script>
</body>
</html>
`;
}

/**
 * The page's script, rendering `${base}/openapi.json`: a file rather than an inline script, so
 * that the policy needs no 'unsafe-inline' for scripts.
 *
 * @param tryItOut Offer "Try it out" (the page and the API share an origin, as on the local
 *   stack); without it the page only documents: a stage's API sends no CORS headers, so a page
 *   of the portal's origin could not call it.
 */
export function apiReferenceInit(base: string, tryItOut: boolean): string {
  return `window.ui = SwaggerUIBundle({
  url: '${base}/openapi.json',
  dom_id: '#swagger-ui',
  displayOperationId: true,
  validatorUrl: null,
  ${tryItOut ? 'tryItOutEnabled: true' : 'supportedSubmitMethods: []'},
});
`;
}

/**
 * docs/openapi.yaml (read at each call, so edits show) with `server` as its first server, so
 * that "Try it out" calls it.
 */
export function apiReferenceDocument(server: {
  readonly url: string;
  readonly description: string;
}): Record<string, unknown> {
  const document = parse(readFileSync(DOCUMENT, 'utf8')) as Record<string, unknown>;
  const servers = Array.isArray(document.servers) ? document.servers : [];
  return { ...document, servers: [server, ...servers] };
}
