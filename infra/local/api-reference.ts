/**
 * The interactive API reference of the local stack, at `/docs` beside the stage: Swagger UI
 * (npm package `swagger-ui-dist`) rendering docs/openapi.yaml, fully offline.
 *
 * Every asset comes from `node_modules`, and a Content-Security-Policy of `'self'` keeps the
 * browser from loading anything else (no CDN, no font service, no validator badge). The document
 * is served with this stack as its first server, so that "Try it out" calls the local API.
 */

import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { REPOSITORY_ROOT } from '../repository.ts';

/** The path the reference is served at. */
export const DOCS_PATH = '/docs';

const DOCUMENT = resolve(REPOSITORY_ROOT, 'docs/openapi.yaml');
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Swagger UI's files that the page loads, with their media types. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  // Swagger UI sets style attributes from its scripts.
  "style-src 'self' 'unsafe-inline'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Petstore API reference (local)</title>
  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
  <link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

// A file rather than an inline script, so that the policy needs no 'unsafe-inline' for scripts.
const INIT = `window.ui = SwaggerUIBundle({
  url: '${DOCS_PATH}/openapi.json',
  dom_id: '#swagger-ui',
  displayOperationId: true,
  validatorUrl: null,
  tryItOutEnabled: true,
});
`;

/**
 * Serves the reference when a request path lies under `/docs`.
 *
 * @param pathname The request path, e.g. `/docs` or `/docs/swagger-ui.css`.
 * @param baseUrl The stack's API base URL (`http://127.0.0.1:3000/v1`), the document's first
 *   server.
 * @returns `false` when the path is not the reference's, or names none of its files: the caller
 *   answers.
 */
export function serveApiReference(
  pathname: string,
  baseUrl: string,
  response: ServerResponse,
): boolean {
  if (pathname === DOCS_PATH || pathname === `${DOCS_PATH}/`) {
    return send(response, 'text/html; charset=utf-8', PAGE);
  }
  if (!pathname.startsWith(`${DOCS_PATH}/`)) return false;
  const name = pathname.slice(DOCS_PATH.length + 1);
  if (name === 'init.js') return send(response, 'text/javascript; charset=utf-8', INIT);
  if (name === 'openapi.json') {
    return send(response, 'application/json', JSON.stringify(localDocument(baseUrl)));
  }
  const type = ASSETS[name];
  return type !== undefined && send(response, type, readFileSync(join(SWAGGER_UI, name)));
}

/** docs/openapi.yaml with this stack as its first server, read at each request (edits show). */
function localDocument(baseUrl: string): Record<string, unknown> {
  const document = parse(readFileSync(DOCUMENT, 'utf8')) as Record<string, unknown>;
  const servers = Array.isArray(document.servers) ? document.servers : [];
  return {
    ...document,
    servers: [{ url: baseUrl, description: 'This copy of the API, on this machine.' }, ...servers],
  };
}

function send(response: ServerResponse, type: string, body: string | Buffer): true {
  response.writeHead(200, {
    'Content-Type': type,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
  });
  response.end(body);
  return true;
}
