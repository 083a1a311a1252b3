/**
 * The interactive API reference of the local stack, at `/docs` beside the stage
 * (infra/api-reference-page.ts), its files from `node_modules`. The document is served with this
 * stack as its first server, so that "Try it out" calls the local API.
 */

import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import {
  API_REFERENCE_ASSETS,
  API_REFERENCE_CSP,
  apiReferenceDocument,
  apiReferenceInit,
  apiReferencePage,
  SWAGGER_UI,
} from '../api-reference-page.ts';

/** The path the reference is served at. */
export const DOCS_PATH = '/docs';

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
    const page = apiReferencePage(DOCS_PATH, 'Petstore API reference (local)');
    return send(response, 'text/html; charset=utf-8', page);
  }
  if (!pathname.startsWith(`${DOCS_PATH}/`)) return false;
  const name = pathname.slice(DOCS_PATH.length + 1);
  if (name === 'init.js') {
    return send(response, 'text/javascript; charset=utf-8', apiReferenceInit(DOCS_PATH, true));
  }
  if (name === 'openapi.json') {
    const server = { url: baseUrl, description: 'This copy of the API, on this machine.' };
    return send(response, 'application/json', JSON.stringify(apiReferenceDocument(server)));
  }
  const type = API_REFERENCE_ASSETS[name];
  return type !== undefined && send(response, type, readFileSync(join(SWAGGER_UI, name)));
}

function send(response: ServerResponse, type: string, body: string | Buffer): true {
  response.writeHead(200, {
    'Content-Type': type,
    'Content-Security-Policy': API_REFERENCE_CSP,
    'X-Content-Type-Options': 'nosniff',
  });
  response.end(body);
  return true;
}
