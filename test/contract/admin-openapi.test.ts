/**
 * docs/admin-openapi.yaml against the code (issue 39, item 1), as the public document is tested:
 * its operations, paths and query parameters are the admin route table's; its enums are the
 * code's (events, plans, scopes, API Gateway's steps and outcomes); its examples conform to their
 * schemas; every error code it lists has the catalogue's status and every admin code is listed;
 * and real answers of every operation, from its handler on DynamoDB Local, conform to the
 * response schema the document gives for their status (ajv, JSON Schema 2020-12; on a stage of
 * two regions: admin-openapi-steps.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_GATEWAY_RESPONSES } from '../../infra/gateway-responses.ts';
import { ADMIN_OPERATIONS } from '../../shared/admin-operations.ts';
import { AUDIT_EVENTS } from '../../shared/audit/entry.ts';
import { ADMIN_ERROR_CATALOGUE } from '../../shared/http/http-errors.ts';
import { API_GATEWAY_OUTCOMES, API_GATEWAY_STEPS } from '../../shared/keys/admin-ports.ts';
import { SCOPES } from '../../shared/keys/scopes.ts';
import { ALL_PLAN_IDS } from '../../shared/plans.ts';
import { service } from '../support/admin-event.ts';
import {
  conformingAnswers,
  document,
  documented,
  errorResponses,
  examples,
  type Node,
  nonConformity,
  queryParameterNames,
  STATUS_OF,
} from '../support/admin-openapi.ts';
import { ban } from '../support/keys-command.ts';

const schemas = (document.components as Node).schemas as Record<string, Node>;

describe('docs/admin-openapi.yaml', () => {
  it('documents exactly the admin route table: operation ids, methods and paths', () => {
    const pairs = (rows: { method: string; path: string; operationId: unknown }[]) =>
      rows.map(({ method, path, operationId }) => `${operationId} ${method} ${path}`).sort();
    expect(
      pairs(
        documented().map(({ method, path, operation }) => ({
          method,
          path,
          operationId: operation.operationId,
        })),
      ),
    ).toEqual(pairs([...ADMIN_OPERATIONS]));
  });

  it.each(ADMIN_OPERATIONS.map((row) => [row.operationId, row] as const))(
    'documents the query parameters %s takes',
    (_, row) => {
      const found = documented().find(({ operation }) => operation.operationId === row.operationId);
      const names = queryParameterNames(document, found?.operation ?? {});
      expect(names.sort()).toEqual([...(row.queryParameters ?? [])].sort());
    },
  );

  it("lists the code's audit events, plans, scopes and API Gateway steps and outcomes", () => {
    const step = schemas.ApiGatewayStep?.properties as Record<string, Node> | undefined;
    expect(schemas.AuditEvent?.enum).toEqual([...AUDIT_EVENTS]);
    expect(schemas.PlanId?.enum).toEqual([...ALL_PLAN_IDS]);
    expect((schemas.Scopes?.items as Node | undefined)?.enum).toEqual([...SCOPES]);
    expect(step?.step?.enum).toEqual([...API_GATEWAY_STEPS]);
    expect(step?.outcome?.enum).toEqual([...API_GATEWAY_OUTCOMES]);
  });

  it('gives examples that conform to their schemas', () => {
    const found = examples(document);
    expect(found.map(([pointer]) => pointer)).toContain('/components/schemas/ApiGatewaySteps');
    for (const [pointer, example] of found) {
      expect(nonConformity(pointer, example), pointer).toBeUndefined();
    }
  });

  it('gives each error code the status of its catalogue, and lists every admin and gateway code', () => {
    const listed = new Set<string>();
    for (const { label, status, codes } of errorResponses(document, documented())) {
      expect(codes, label).toBeDefined();
      for (const code of codes) {
        expect(STATUS_OF[code]?.status, `${label}: ${code}`).toBe(status);
        listed.add(code);
      }
    }
    for (const code of document['x-route-level-error-codes'] as string[]) listed.add(code);
    for (const code of Object.keys(ADMIN_ERROR_CATALOGUE)) expect(listed).toContain(code);
    for (const { body } of ADMIN_GATEWAY_RESPONSES) expect(listed).toContain(body.code);
  });

  it('documents for every operation the 403 of an unsigned or refused request', () => {
    for (const { operation } of documented()) {
      expect(Object.keys(operation.responses as Node)).toContain('403');
    }
  });
});

describe('answers of the admin functions', () => {
  const conforming = conformingAnswers(service);

  it('conform to the document, for every operation, success and refusal', async () => {
    const created = await conforming('createKey', {
      body: {
        plan: 'enterprise',
        limits: { perMinute: 10, perDay: 100 },
        owner: 'Acme',
        scopes: ['pets:read'],
        reason: 'contract',
      },
    });
    expect(created.status).toBe(201);
    const keyId = created.body.key.keyId as string;
    const since = new Date(Date.now() - 60_000).toISOString();

    const answers = [
      await conforming('listKeys'),
      await conforming('getKey', { keyId }),
      await conforming('rollKey', { keyId, body: { graceSeconds: 0 } }),
      await conforming('setKeyExpiry', {
        keyId,
        body: { expiresAt: new Date(Date.now() + 86_400_000).toISOString() },
      }),
      await conforming('setKeyExpiry', { keyId, body: { expiresAt: null } }),
      await conforming('setKeyPlan', { keyId, body: { plan: 'pro' } }),
      await conforming('setKeyScopes', { keyId, body: { scopes: ['pets:write'] } }),
      await conforming('getKeyUsage', { keyId, query: { days: '3' } }),
      await conforming('unbanKey', { keyId, body: {} }),
      await conforming('revokeKey', { keyId, body: { reason: 'done' } }),
      await conforming('getKeyHistory', { keyId }),
      await conforming('listAuditEntries', { query: { since } }),
    ];
    expect(answers.map(({ status }) => status)).toEqual(Array(answers.length).fill(200));

    const refusals = [
      await conforming('createKey', {
        body: { plan: 'free', limits: { perMinute: 1, perDay: 1 } },
      }),
      await conforming('createKey', { body: '[' }),
      await conforming('getKey', { keyId: 'key_nothex' }),
      await conforming('getKey', { keyId: `key_${'0'.repeat(16)}` }),
      await conforming('rollKey', { keyId, body: {} }),
      await conforming('getKeyUsage', { keyId, query: { days: '99' } }),
      await conforming('listAuditEntries', { query: { since: 'yesterday' } }),
      await conforming('listKeys', { arn: null }),
    ];
    expect(refusals.map(({ status, body }) => `${status} ${body.code}`)).toEqual([
      '400 invalid_body',
      '400 invalid_json',
      '400 invalid_parameter',
      '404 key_not_found',
      '409 key_revoked',
      '400 invalid_parameter',
      '400 invalid_parameter',
      '403 forbidden',
    ]);
  });

  it('conform when a ban is lifted', async () => {
    const created = await conforming('createKey', { body: { plan: 'free' } });
    const keyId = created.body.key.keyId as string;
    await ban(keyId);
    const listed = await conforming('getKey', { keyId });
    const lifted = await conforming('unbanKey', { keyId, body: {} });
    expect(listed.body.bannedUntil).toEqual(expect.any(String));
    expect(lifted.body).toMatchObject({ keyId, lifted: true });
  });
});
