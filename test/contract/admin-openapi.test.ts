/**
 * docs/admin-openapi.yaml against the code (issue 39, item 1), as the public document is tested:
 * its operations, paths and query parameters are the admin route table's; its enums are the
 * code's (events, plans, scopes); every error code it lists has the catalogue's status and every
 * admin code is listed; and real answers of every operation, from its handler on DynamoDB Local,
 * conform to the response schema the document gives for their status (ajv, JSON Schema 2020-12).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createKeyHandler } from '../../functions/admin/operations/create-key.ts';
import { getKeyHandler } from '../../functions/admin/operations/get-key.ts';
import { getKeyHistoryHandler } from '../../functions/admin/operations/get-key-history.ts';
import { getKeyUsageHandler } from '../../functions/admin/operations/get-key-usage.ts';
import { listAuditEntriesHandler } from '../../functions/admin/operations/list-audit-entries.ts';
import { listKeysHandler } from '../../functions/admin/operations/list-keys.ts';
import { revokeKeyHandler } from '../../functions/admin/operations/revoke-key.ts';
import { rollKeyHandler } from '../../functions/admin/operations/roll-key.ts';
import { setKeyExpiryHandler } from '../../functions/admin/operations/set-key-expiry.ts';
import { setKeyPlanHandler } from '../../functions/admin/operations/set-key-plan.ts';
import { setKeyScopesHandler } from '../../functions/admin/operations/set-key-scopes.ts';
import { unbanKeyHandler } from '../../functions/admin/operations/unban-key.ts';
import { ADMIN_GATEWAY_RESPONSES } from '../../infra/gateway-responses.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { ADMIN_OPERATIONS, type AdminOperationId } from '../../shared/admin-operations.ts';
import { AUDIT_EVENTS } from '../../shared/audit/entry.ts';
import {
  ADMIN_ERROR_CATALOGUE,
  type AnyErrorCode,
  ERROR_CATALOGUE,
} from '../../shared/http/errors.ts';
import { SCOPES } from '../../shared/keys/scopes.ts';
import { ALL_PLAN_IDS } from '../../shared/plans.ts';
import { type AdminRequest, adminEvent, service } from '../support/admin-event.ts';
import { ban } from '../support/keys-command.ts';

type Node = Record<string, unknown>;

const DOCUMENT_ID = 'https://petstore.local/admin-openapi.yaml';
const document = parse(
  readFileSync(new URL('../../docs/admin-openapi.yaml', import.meta.url), 'utf8'),
) as Node;
const paths = document.paths as Record<string, Node>;
const schemas = (document.components as Node).schemas as Record<string, Node>;

// OpenAPI's own keywords (example, x-…) are annotations here, not schema errors.
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
ajv.addSchema(document, DOCUMENT_ID);

const STATUS_OF: Readonly<Record<string, { status: number }>> = {
  ...ERROR_CATALOGUE,
  ...ADMIN_ERROR_CATALOGUE,
};

/** A JSON pointer segment. */
const pointerSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Each documented operation: method, path and the operation object. */
function documented() {
  return Object.entries(paths).flatMap(([path, item]) =>
    ['get', 'put', 'post', 'delete', 'patch']
      .filter((method) => item[method])
      .map((method) => ({ method: method.toUpperCase(), path, operation: item[method] as Node })),
  );
}

/** The JSON pointer of the response schema of an operation's `status`, following a `$ref`. */
function responsePointer(operationId: AdminOperationId, status: number): string {
  const found = documented().find(({ operation }) => operation.operationId === operationId);
  if (!found) throw new Error(`${operationId} is not documented`);
  const response = (found.operation.responses as Record<string, Node>)[String(status)];
  if (!response) throw new Error(`${operationId} documents no ${status}`);
  const base =
    typeof response.$ref === 'string'
      ? response.$ref.slice(1)
      : `/paths/${pointerSegment(found.path)}/${found.method.toLowerCase()}/responses/${status}`;
  return `${base}/content/application~1json/schema`;
}

/** Every response object of the document, `$ref`s followed, with its status. */
function errorResponses(): { label: string; status: number; codes: string[] }[] {
  const components = (document.components as Node).responses as Record<string, Node>;
  return documented().flatMap(({ operation }) =>
    Object.entries(operation.responses as Record<string, Node>)
      .filter(([status]) => Number(status) >= 400)
      .map(([status, response]) => {
        const resolved =
          typeof response.$ref === 'string'
            ? (components[response.$ref.split('/').pop() as string] as Node)
            : response;
        return {
          label: `${operation.operationId} ${status}`,
          status: Number(status),
          codes: resolved['x-error-codes'] as string[],
        };
      }),
  );
}

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
      const names = ((found?.operation.parameters ?? []) as Node[])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name);
      expect(names.sort()).toEqual([...(row.queryParameters ?? [])].sort());
    },
  );

  it("lists the code's audit events, plans and scopes", () => {
    expect(schemas.AuditEvent?.enum).toEqual([...AUDIT_EVENTS]);
    expect(schemas.PlanId?.enum).toEqual([...ALL_PLAN_IDS]);
    expect((schemas.Scopes?.items as Node | undefined)?.enum).toEqual([...SCOPES]);
  });

  it('gives each error code the status of its catalogue, and lists every admin and gateway code', () => {
    const listed = new Set<string>();
    for (const { label, status, codes } of errorResponses()) {
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
  const handlers: Record<AdminOperationId, unknown> = {
    listKeys: listKeysHandler(service),
    createKey: createKeyHandler(service),
    getKey: getKeyHandler(service),
    rollKey: rollKeyHandler(service),
    setKeyExpiry: setKeyExpiryHandler(service),
    setKeyPlan: setKeyPlanHandler(service),
    setKeyScopes: setKeyScopesHandler(service),
    revokeKey: revokeKeyHandler(service),
    unbanKey: unbanKeyHandler(service),
    getKeyUsage: getKeyUsageHandler(service),
    getKeyHistory: getKeyHistoryHandler(service),
    listAuditEntries: listAuditEntriesHandler(service),
  };

  /** Calls the operation and checks its answer against the document; the parsed body. */
  async function conforming(operationId: AdminOperationId, request: AdminRequest = {}) {
    const handler = handlers[operationId] as (
      event: APIGatewayProxyEvent,
      context: unknown,
    ) => Promise<APIGatewayProxyResult>;
    const result = await handler(adminEvent(operationId, request), createLambdaContext('admin'));
    const body = JSON.parse(result.body);
    const validate = ajv.compile({
      $ref: `${DOCUMENT_ID}#${responsePointer(operationId, result.statusCode)}`,
    });
    expect(
      validate(body),
      `${operationId} ${result.statusCode}: ${ajv.errorsText(validate.errors)}`,
    ).toBe(true);
    if (result.statusCode >= 400) {
      expect(STATUS_OF[body.code as AnyErrorCode]?.status).toBe(result.statusCode);
    }
    return { status: result.statusCode, body };
  }

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
