/**
 * The admin API's operations on the key service on DynamoDB Local, through their handlers (issue
 * 39, items 1, 4 and 5): each change writes its audit entry in the change's own transaction; the
 * actor is the IAM principal of the request's identity, never a body's; a refused or failed
 * change writes no entry; history and the stage's window read them back.
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createKeyHandler } from '../../../functions/admin/handlers/create-key.ts';
import { getKeyHistoryHandler } from '../../../functions/admin/handlers/get-key-history.ts';
import { listAuditEntriesHandler } from '../../../functions/admin/handlers/list-audit-entries.ts';
import { revokeKeyHandler } from '../../../functions/admin/handlers/revoke-key.ts';
import { rollKeyHandler } from '../../../functions/admin/handlers/roll-key.ts';
import { setKeyExpiryHandler } from '../../../functions/admin/handlers/set-key-expiry.ts';
import { setKeyPlanHandler } from '../../../functions/admin/handlers/set-key-plan.ts';
import { setKeyScopesHandler } from '../../../functions/admin/handlers/set-key-scopes.ts';
import { unbanKeyHandler } from '../../../functions/admin/handlers/unban-key.ts';
import { createLambdaContext } from '../../../infra/local/events.ts';
import type { AuditEntry } from '../../../shared/audit/entry.ts';
import { DynamoDBAuditLog } from '../../../shared/dynamodb/audit-log.ts';
import { DynamoDBRateLimitBans } from '../../../shared/dynamodb/bans.ts';
import { createDocumentClient } from '../../../shared/dynamodb/clients.ts';
import { DynamoDBKeyStore } from '../../../shared/dynamodb/key-store.ts';
import { DynamoDBKeyUsage } from '../../../shared/dynamodb/key-usage.ts';
import { KeyService } from '../../../shared/keys/key-service.ts';
import { readSettings, requiredSetting } from '../../../shared/settings.ts';
import { adminEvent, SIGNER, service, USER_AGENT } from '../../support/admin-event.ts';
import { ban, currentOf } from '../../support/keys-command.ts';

const settings = readSettings();
const client = createDocumentClient();
const audit = DynamoDBAuditLog.from({ client, settings });
const context = () => createLambdaContext('admin');

type Handler = (event: APIGatewayProxyEvent, context: never) => Promise<APIGatewayProxyResult>;

/** Calls `handler` with `event`; the status and parsed body. */
async function call(handler: unknown, event: APIGatewayProxyEvent) {
  const result = await (handler as Handler)(event, context() as never);
  return { status: result.statusCode, body: JSON.parse(result.body), headers: result.headers };
}

const handlers = {
  create: createKeyHandler(service),
  history: getKeyHistoryHandler(service),
  window: listAuditEntriesHandler(service),
  revoke: revokeKeyHandler(service),
  roll: rollKeyHandler(service),
  expiry: setKeyExpiryHandler(service),
  plan: setKeyPlanHandler(service),
  scopes: setKeyScopesHandler(service),
  unban: unbanKeyHandler(service),
};

/** Issues a key through createKey; its id and token. */
async function created(body: Record<string, unknown> = { plan: 'free' }) {
  const { status, body: answer } = await call(handlers.create, adminEvent('createKey', { body }));
  expect(status).toBe(201);
  return answer as { key: { keyId: string }; token: string };
}

/** A key's entries, oldest first, as the audit table holds them. */
function historyOf(keyId: string): Promise<AuditEntry[]> {
  return audit.history(keyId);
}

describe('the admin API on the key service', () => {
  it('write each change with its audit entry: event, actor from the identity, before and after', async () => {
    // GIVEN a key issued through createKey
    const { key } = await created({ plan: 'free', owner: 'Acme', reason: 'trial' });

    // WHEN it moves to Enterprise with limits of its own
    const { status, body } = await call(
      handlers.plan,
      adminEvent('setKeyPlan', {
        keyId: key.keyId,
        body: { plan: 'enterprise', limits: { perMinute: 5, perDay: 50 }, reason: 'invoice 7' },
      }),
    );

    // THEN the answer shows the change and the history holds both entries, oldest first
    expect(status).toBe(200);
    expect(body.previous.plan).toBe('free');
    expect(body.key).toMatchObject({ plan: 'enterprise', perMinute: 5, perDay: 50 });
    const [createdEntry, moved] = await historyOf(key.keyId);
    expect(createdEntry).toMatchObject({
      event: 'key.created',
      keyId: key.keyId,
      actor: { type: 'iam', id: SIGNER },
      sourceIp: '203.0.113.7',
      userAgent: USER_AGENT,
      reason: 'trial',
      changes: { plan: { after: 'free' }, owner: { after: 'Acme' } },
    });
    expect(moved).toMatchObject({
      event: 'key.plan_changed',
      actor: { type: 'iam', id: SIGNER },
      reason: 'invoice 7',
      changes: {
        plan: { before: 'free', after: 'enterprise' },
        perMinute: { after: 5 },
        perDay: { after: 50 },
      },
    });
    expect(moved?.requestId).toEqual(expect.any(String));
    expect(Date.parse(moved?.at ?? '')).toBeGreaterThanOrEqual(Date.parse(createdEntry?.at ?? ''));
  });

  it('records no token, token hash or usage identifier in any entry', async () => {
    const { key, token } = await created();
    const rolled = await call(
      handlers.roll,
      adminEvent('rollKey', { keyId: key.keyId, body: { graceSeconds: 60 } }),
    );
    expect(rolled.status).toBe(200);
    const stored = await currentOf(key.keyId);

    const text = JSON.stringify(await historyOf(key.keyId));

    expect(text).toContain('key.rolled');
    for (const secret of [token, rolled.body.token, stored?.keyHash, stored?.usageIdentifier]) {
      expect(text).not.toContain(secret);
    }
    expect((await historyOf(key.keyId))[1]?.changes).toEqual({
      oldTokenUntil: { after: rolled.body.graceUntil },
    });
  });

  it('writes each kind of change as its event: expiry, scopes, revocation, unban', async () => {
    const { key } = await created();
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    await call(
      handlers.expiry,
      adminEvent('setKeyExpiry', { keyId: key.keyId, body: { expiresAt } }),
    );
    await call(
      handlers.scopes,
      adminEvent('setKeyScopes', { keyId: key.keyId, body: { scopes: ['pets:read'] } }),
    );
    await ban(key.keyId);
    const unbanned = await call(
      handlers.unban,
      adminEvent('unbanKey', { keyId: key.keyId, body: {} }),
    );
    await call(handlers.revoke, adminEvent('revokeKey', { keyId: key.keyId, body: {} }));

    expect(unbanned.body).toMatchObject({ keyId: key.keyId, lifted: true });
    const entries = await historyOf(key.keyId);
    expect(entries.map((entry) => entry.event)).toEqual([
      'key.created',
      'key.expiry_set',
      'key.scope_changed',
      'key.unbanned',
      'key.revoked',
    ]);
    expect(entries[1]?.changes).toEqual({ expiresAt: { after: expiresAt } });
    expect(entries[2]?.changes).toEqual({
      scopes: { before: ['pets:read', 'pets:write'], after: ['pets:read'] },
    });
    expect(entries[4]?.changes.revokedAt?.after).toEqual(expect.any(String));
  });

  it('writes no entry for a change that changes nothing: a second revocation, no ban to lift', async () => {
    const { key } = await created();
    await call(handlers.revoke, adminEvent('revokeKey', { keyId: key.keyId, body: {} }));

    const again = await call(
      handlers.revoke,
      adminEvent('revokeKey', { keyId: key.keyId, body: {} }),
    );
    const unban = await call(
      handlers.unban,
      adminEvent('unbanKey', { keyId: key.keyId, body: {} }),
    );

    expect(again.status).toBe(200);
    expect(unban.body).toEqual({ keyId: key.keyId, lifted: false });
    expect((await historyOf(key.keyId)).map((entry) => entry.event)).toEqual([
      'key.created',
      'key.revoked',
    ]);
  });

  it('writes no entry for a refused change: a bad body, a revoked key, an unknown key', async () => {
    const { key } = await created();
    await call(handlers.revoke, adminEvent('revokeKey', { keyId: key.keyId, body: {} }));
    const unknown = `key_${'0'.repeat(16)}`;

    const answers = await Promise.all([
      call(handlers.plan, adminEvent('setKeyPlan', { keyId: key.keyId, body: { plan: 'gold' } })),
      call(handlers.plan, adminEvent('setKeyPlan', { keyId: key.keyId, body: { plan: 'pro' } })),
      call(handlers.roll, adminEvent('rollKey', { keyId: key.keyId, body: {} })),
      call(handlers.plan, adminEvent('setKeyPlan', { keyId: unknown, body: { plan: 'pro' } })),
      call(
        handlers.plan,
        adminEvent('setKeyPlan', {
          keyId: key.keyId,
          body: { plan: 'free', limits: { perMinute: 1, perDay: 1 } },
        }),
      ),
    ]);

    expect(answers.map(({ status, body }) => [status, body.code])).toEqual([
      [400, 'invalid_body'],
      [409, 'key_revoked'],
      [409, 'key_revoked'],
      [404, 'key_not_found'],
      [400, 'invalid_body'],
    ]);
    expect((await historyOf(key.keyId)).map((entry) => entry.event)).toEqual([
      'key.created',
      'key.revoked',
    ]);
    expect(await historyOf(unknown)).toEqual([]);
  });

  it('takes the actor from the IAM identity only: a body that claims one is refused', async () => {
    const claimed = await call(
      handlers.create,
      adminEvent('createKey', { body: { plan: 'free', actor: 'arn:aws:iam::111111111111:root' } }),
    );
    const unsigned = await call(
      handlers.create,
      adminEvent('createKey', { body: { plan: 'free' }, arn: null }),
    );

    expect([claimed.status, claimed.body.code, claimed.body.message]).toEqual([
      400,
      'invalid_body',
      'actor: is not allowed',
    ]);
    expect([unsigned.status, unsigned.body.code]).toEqual([403, 'forbidden']);
  });

  it('makes no change when its audit entry cannot be written: both are one transaction', async () => {
    // GIVEN a key service whose audit table does not exist
    const countersTable = requiredSetting(settings, 'COUNTERS_TABLE_NAME');
    const missing = new DynamoDBAuditLog(client, `missing-${randomUUID()}`, 400);
    const broken = new KeyService({
      keys: new DynamoDBKeyStore(client, requiredSetting(settings, 'KEYS_TABLE_NAME'), missing),
      audit: missing,
      bans: new DynamoDBRateLimitBans(client, countersTable, missing),
      usage: new DynamoDBKeyUsage(client, countersTable),
      tokenStage: 'local',
    });
    const { key } = await created();
    const signed = adminEvent('setKeyPlan', { keyId: key.keyId, body: { plan: 'pro' } });

    // WHEN a plan change and a revocation run there
    const moved = await call(setKeyPlanHandler(broken), signed);
    const revoked = await call(
      revokeKeyHandler(broken),
      adminEvent('revokeKey', { keyId: key.keyId, body: {} }),
    );

    // THEN both fail with 503 and the key is as it was
    expect([moved.status, revoked.status]).toEqual([503, 503]);
    expect(await currentOf(key.keyId)).toMatchObject({ plan: 'free' });
    expect((await currentOf(key.keyId))?.revokedAt).toBeUndefined();
  });

  it("answers a key's history oldest first, and the stage's window by actor and event", async () => {
    const since = new Date(Date.now() - 1_000).toISOString();
    const { key } = await created();
    const other = 'arn:aws:sts::111111111111:assumed-role/billing/stripe';
    await call(
      handlers.plan,
      adminEvent('setKeyPlan', { keyId: key.keyId, body: { plan: 'pro' }, arn: other }),
    );

    const history = await call(handlers.history, adminEvent('getKeyHistory', { keyId: key.keyId }));
    const byActor = await call(
      handlers.window,
      adminEvent('listAuditEntries', { query: { since, actor: other } }),
    );
    const byEvent = await call(
      handlers.window,
      adminEvent('listAuditEntries', { query: { since, event: 'key.created' } }),
    );

    expect(history.body.entries.map((entry: AuditEntry) => entry.event)).toEqual([
      'key.created',
      'key.plan_changed',
    ]);
    expect(byActor.body.entries).toEqual([history.body.entries[1]]);
    expect(byEvent.body.entries.map((entry: AuditEntry) => entry.keyId)).toContain(key.keyId);
    expect(byEvent.body.entries.every((entry: AuditEntry) => entry.event === 'key.created')).toBe(
      true,
    );
  });

  it('refuses a window that ends before it starts, or spans over ten years, with 400', async () => {
    const windows = [
      { since: '2026-03-02T00:00:00.000Z', until: '2026-03-01T00:00:00.000Z' },
      { since: '2016-01-01T00:00:00.000Z', until: '2026-03-01T00:00:00.000Z' },
    ];

    const answers = await Promise.all(
      windows.map((query) => call(handlers.window, adminEvent('listAuditEntries', { query }))),
    );

    expect(answers.map(({ status, body }) => [status, body.code, body.message])).toEqual([
      [400, 'invalid_parameter', 'until must be after since'],
      [400, 'invalid_parameter', 'a window spans at most 3660 days'],
    ]);
  });

  it('keeps an entry for the retention: its TTL is 400 days after the change', async () => {
    const { key } = await created();
    const { Items } = await client.send(
      new ScanCommand({
        TableName: audit.tableName,
        FilterExpression: 'keyId = :keyId',
        ExpressionAttributeValues: { ':keyId': key.keyId },
      }),
    );
    const [item] = Items ?? [];
    expect(item?.expiresAt).toBe(Math.floor(Date.parse(item?.at) / 1000) + 400 * 86_400);
    expect(item?.day).toBe(String(item?.at).slice(0, 10));
  });
});
