/**
 * Each row of the route table (infra/routes.ts) has what docs/architecture.md's "Adding an
 * operation" says an operation needs: its operation in docs/openapi.yaml (same operationId, method
 * and path, and no documented operation without a row), an entry exporting `createHandler` and
 * `handler`, a handler module exporting `<operationId>Handler`, a scope of `SCOPES`, table
 * access on the stack's tables with the rate limiter's calls, a method of the client, and a row in
 * the architecture's table of round trips.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PetstoreClient } from '../../client/src/client.ts';
import { newSecretValue } from '../../infra/local/local-secrets.ts';
import { REPOSITORY_ROOT } from '../../infra/repository.ts';
import { RATE_LIMITER_ACCESS, ROUTES } from '../../infra/routes.ts';
import { TABLES } from '../../shared/dynamodb/tables.ts';
import { SCOPES } from '../../shared/keys/scopes.ts';
import { handlerFactoryOf } from '../support/handler-modules.ts';
import { documentedOperations } from '../support/openapi-document.ts';

/** The operations of the round-trip table in docs/architecture.md (its first column). */
function roundTripRows(): string[] {
  const architecture = readFileSync(join(REPOSITORY_ROOT, 'docs/architecture.md'), 'utf8');
  const table = architecture.split('| operation | sent together | then |')[1] ?? '';
  return [...table.matchAll(/^\| ([^|\s]+) \|/gm)]
    .map(([, operation]) => String(operation))
    .filter((operation) => operation !== '---');
}

describe.each(ROUTES)('the route of $operationId', (route) => {
  it('is an operation of docs/openapi.yaml with the same method and path', () => {
    const documented = documentedOperations().find(
      ({ operation }) => operation.operationId === route.operationId,
    );
    expect(documented, 'no such operationId').toBeDefined();
    expect({ method: documented?.method, path: documented?.path }).toEqual({
      method: route.method.toLowerCase(),
      path: route.path,
    });
  });

  it('has an entry exporting createHandler and handler', async () => {
    // The entry builds its handler at import, on Lambda's environment: the tables' names and,
    // as on the local stack, its secrets' values.
    for (const table of TABLES) vi.stubEnv(table.envVar, table.localName);
    for (const secret of route.secrets ?? []) vi.stubEnv(secret.localSetting, newSecretValue());
    const entry: Record<string, unknown> = await import(
      new URL(`../../${route.entry}`, import.meta.url).href
    );
    expect(typeof entry.createHandler, 'createHandler').toBe('function');
    expect(typeof entry.handler, 'handler').toBe('function');
  });

  it('has a handler module exporting its handler factory', async () => {
    await expect(handlerFactoryOf(route)).resolves.toBeTypeOf('function');
  });

  it('needs a scope that keys can hold', () => {
    expect(SCOPES).toContain(route.scope);
  });

  it("calls only the stack's tables, the rate limiter's calls among them", () => {
    expect(route.tableAccess).toContain(RATE_LIMITER_ACCESS);
    for (const { table, actions } of route.tableAccess) {
      expect(TABLES).toContain(table);
      for (const action of actions) expect(action).toMatch(/^dynamodb:[A-Z][A-Za-z]+$/);
    }
  });

  it('is a method of the client', () => {
    expect(typeof Reflect.get(PetstoreClient.prototype, route.operationId)).toBe('function');
  });

  it("has a row in docs/architecture.md's table of round trips", () => {
    expect(roundTripRows()).toContain(route.operationId);
  });
});

describe('docs/openapi.yaml', () => {
  it('holds no operation without a route', () => {
    const routed = new Set<unknown>(ROUTES.map((route) => route.operationId));
    const unrouted = documentedOperations()
      .map(({ operation }) => operation.operationId)
      .filter((operationId) => !routed.has(operationId));
    expect(unrouted).toEqual([]);
  });
});
