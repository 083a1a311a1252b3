/**
 * docs/portal-openapi.yaml against the code (issue 48, item 3), as the admin document is tested:
 * its operations, paths and query parameters are the portal route table's; its enums are the
 * code's; its examples conform to their schemas; every error code it lists has the catalogue's
 * status, every portal code and gateway response is listed; and real answers of every operation,
 * from its handler on DynamoDB Local, conform to the schema the document gives for their status.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PORTAL_GATEWAY_RESPONSES } from '../../infra/gateway-responses.ts';
import { PORTAL_ERROR_CATALOGUE } from '../../shared/http/http-errors.ts';
import { SCOPES } from '../../shared/keys/scopes.ts';
import { ALL_PLAN_IDS, PLAN_IDS } from '../../shared/plans.ts';
import { ROLL_GRACES } from '../../shared/portal/portal-schemas.ts';
import { PORTAL_OPERATIONS, type PortalOperationId } from '../../shared/portal-operations.ts';
import {
  errorResponses,
  examples,
  type Node,
  openApiDocument,
  queryParameterNames,
  STATUS_OF,
} from '../support/admin-openapi.ts';
import { callPortal, type PortalRequest, tokenOf } from '../support/portal-handlers.ts';

const portal = openApiDocument('portal-openapi.yaml');
const { document } = portal;
const schemas = (document.components as Node).schemas as Record<string, Node>;

/** Calls the operation's handler and expects its answer to conform to the document. */
async function conforming(operationId: PortalOperationId, request: PortalRequest = {}) {
  const answer = await callPortal(operationId, request);
  if (answer.status !== 204) {
    const pointer = portal.responsePointer(operationId, answer.status);
    expect(
      portal.nonConformity(pointer, answer.body),
      `${operationId} ${answer.status}`,
    ).toBeUndefined();
  }
  if (answer.status >= 400) expect(STATUS_OF[answer.body.code]?.status).toBe(answer.status);
  return answer;
}

describe('docs/portal-openapi.yaml', () => {
  it('documents exactly the portal route table: operation ids, methods, paths, query parameters', () => {
    const rows = (
      list: { method: string; path: string; operationId: unknown; query: unknown[] }[],
    ) =>
      list
        .map(
          ({ method, path, operationId, query }) =>
            `${operationId} ${method} ${path} ${query.sort()}`,
        )
        .sort();
    expect(
      rows(
        portal.documented().map(({ method, path, operation }) => ({
          method,
          path,
          operationId: operation.operationId,
          query: queryParameterNames(document, operation),
        })),
      ),
    ).toEqual(
      rows(PORTAL_OPERATIONS.map((row) => ({ ...row, query: [...(row.queryParameters ?? [])] }))),
    );
  });

  it("lists the code's plans, scopes and roll graces", () => {
    const portalKey = schemas.PortalKey?.properties as Record<string, Node>;
    const plan = schemas.Plan?.properties as Record<string, Node>;
    expect(portalKey.plan?.enum).toEqual([...ALL_PLAN_IDS]);
    expect(plan.id?.enum).toEqual([...PLAN_IDS]);
    expect(((schemas.Scopes as Node).items as Node).enum).toEqual([...SCOPES]);
    const roll = (document.paths as Record<string, Node>)['/keys/{keyId}/roll'] as Node;
    const body = JSON.stringify(roll.post);
    expect(body).toContain(JSON.stringify([...ROLL_GRACES]));
  });

  it('gives examples that conform to their schemas', () => {
    const found = examples(document);
    expect(found.map(([pointer]) => pointer)).toContain('/components/schemas/KeyAnswer');
    for (const [pointer, example] of found) {
      expect(portal.nonConformity(pointer, example), pointer).toBeUndefined();
    }
  });

  it('gives each error code its status, lists every portal code and gateway response, and 401 everywhere', () => {
    const listed = new Set<string>(document['x-route-level-error-codes'] as string[]);
    for (const { label, status, codes } of errorResponses(document, portal.documented())) {
      for (const code of codes) {
        expect(STATUS_OF[code]?.status, `${label}: ${code}`).toBe(status);
        listed.add(code);
      }
    }
    for (const code of Object.keys(PORTAL_ERROR_CATALOGUE)) expect(listed).toContain(code);
    for (const { body } of PORTAL_GATEWAY_RESPONSES) expect(listed).toContain(body.code);
    for (const { operation } of portal.documented()) {
      expect(Object.keys(operation.responses as Node)).toContain('401');
    }
  });
});

describe('answers of the portal functions', () => {
  it('conform to the document, for every operation, success and refusal', async () => {
    const sub = randomUUID();
    const token = tokenOf({ sub, email: `${sub.slice(0, 8)}@example.com`, emailVerified: true });
    const created = await conforming('createPortalKey', {
      token,
      body: { name: 'contract', scopes: ['pets:read'] },
    });
    await conforming('createPortalKey', {
      token,
      body: { name: 'second', scopes: ['pets:write'] },
    });
    const keyId = created.body.key.keyId as string;

    const answers = [
      await conforming('getAccount', { token }),
      await conforming('listPortalKeys', { token, query: { limit: '1' } }),
      await conforming('getPortalKey', { token, keyId }),
      await conforming('getPortalKeyUsage', { token, keyId }),
      await conforming('rollPortalKey', { token, keyId, body: { graceSeconds: 3600 } }),
      await conforming('setPortalKeyPlan', { token, keyId, body: { plan: 'free' } }),
      await conforming('setPortalKeyPlan', { token, keyId, body: { plan: 'business' } }),
      await conforming('revokePortalKey', { token, keyId }),
      await conforming('deleteAccount', { token }),
    ];
    expect(answers.map(({ status }) => status)).toEqual([
      200, 200, 200, 200, 200, 200, 202, 200, 204,
    ]);

    const refusals = [
      await conforming('getAccount'),
      await conforming('createPortalKey', { token, body: { name: '', scopes: [] } }),
      await conforming('createPortalKey', { token, body: '{' }),
      await conforming('getPortalKey', { token, keyId: 'key_nothex' }),
      await conforming('getPortalKey', { token, keyId: `key_${'0'.repeat(16)}` }),
      await conforming('rollPortalKey', { token, keyId, body: { graceSeconds: 60 } }),
      await conforming('rollPortalKey', { token, keyId, body: { graceSeconds: 0 } }),
      await conforming('listPortalKeys', { token, query: { cursor: 'nope' } }),
    ];
    expect(refusals.map(({ status, body }) => `${status} ${body.code}`)).toEqual([
      '401 unauthorized',
      '400 invalid_body',
      '400 invalid_json',
      '400 invalid_parameter',
      '404 key_not_found',
      '400 invalid_body',
      '409 key_revoked',
      '400 invalid_parameter',
    ]);
  });
});
