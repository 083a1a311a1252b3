/**
 * Every change of the key service is on record (docs/architecture.md, "The key service"): each
 * writes what it changes and exactly one audit entry, of its event, in one transaction, and
 * nothing else; a change that changes nothing writes no entry. Every call of the service's client
 * is recorded, as DynamoDB receives it.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { keyServiceOn } from '../../functions/admin/composition-root.ts';
import type { AuditEvent } from '../../shared/audit/entry.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { seedKey, TEST_CONTEXT } from '../support/test-keys.ts';

const settings = readSettings();
const keysTable = requiredSetting(settings, 'KEYS_TABLE_NAME');
const auditTable = requiredSetting(settings, 'AUDIT_TABLE_NAME');
const countersTable = requiredSetting(settings, 'COUNTERS_TABLE_NAME');

/** Every command the service's client sends, by name, with its input. */
const sent: { command: string; input: Record<string, unknown> }[] = [];
const client = createDocumentClient();
client.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push({ command: context.commandName ?? '', input: args.input as Record<string, unknown> });
    return next(args);
  },
  { step: 'initialize' },
);
const service = keyServiceOn({ client, settings });
afterAll(() => client.destroy());

const READS = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand']);

type TransactItem = Record<string, { TableName: string; Item?: Record<string, unknown> }>;

/**
 * The writes `change` sends: each write call, with the tables its items write and the events of
 * the audit entries among them.
 */
async function writesOf(change: () => Promise<unknown>) {
  sent.length = 0;
  await change();
  return sent
    .filter(({ command }) => !READS.has(command))
    .map(({ command, input }) => {
      const items = (input.TransactItems as TransactItem[] | undefined) ?? [
        { Write: input as never },
      ];
      const writes = items.map((item) => Object.values(item)[0] as TransactItem[string]);
      const entries = writes.filter(({ TableName }) => TableName === auditTable);
      return {
        command,
        tables: [...new Set(writes.map(({ TableName }) => TableName))].sort(),
        events: entries.map(({ Item }) => eventOf(Item?.event)),
      };
    });
}

/** An entry's event, as the client sends it (marshalled or not). */
function eventOf(value: unknown): string {
  return typeof value === 'string' ? value : String((value as { S?: string }).S);
}

/** One transaction on `tables` (the audit table besides) holding exactly the entry of `event`. */
function oneTransactionWith(event: AuditEvent, tables: string[]) {
  return [
    {
      command: 'TransactWriteItemsCommand',
      tables: [...tables, auditTable].sort(),
      events: [event],
    },
  ];
}

/** A key of the service, issued with its entry. */
async function issued(): Promise<string> {
  return (await service.createKey({ plan: 'free' }, TEST_CONTEXT)).key.keyId;
}

/** Bans a key as the limiter does: a threshold of 0 bans at the first refusal. */
async function banned(keyId: string): Promise<void> {
  const strict = new DynamoDBRateLimiter(client, countersTable, {
    threshold: 0,
    durationSeconds: 900,
  });
  const limits = { perMinute: 1, perDay: 1_000 };
  await strict.consume(keyId, limits, Date.now());
  await strict.consume(keyId, limits, Date.now());
}

describe('the key service on record', () => {
  it('issues a key in one transaction with its key.created entry', async () => {
    expect(await writesOf(issued)).toEqual(oneTransactionWith('key.created', [keysTable]));
  });

  it.each<[AuditEvent, (keyId: string) => Promise<unknown>]>([
    ['key.rolled', (keyId) => service.rollKey(keyId, 60, TEST_CONTEXT)],
    [
      'key.expiry_set',
      (keyId) => service.setExpiry(keyId, '2099-01-01T00:00:00.000Z', TEST_CONTEXT),
    ],
    ['key.scope_changed', (keyId) => service.setScopes(keyId, ['pets:read'], TEST_CONTEXT)],
    ['key.plan_changed', (keyId) => service.setPlan(keyId, 'pro', undefined, TEST_CONTEXT)],
    ['key.revoked', (keyId) => service.revokeKey(keyId, TEST_CONTEXT)],
  ])('makes a change in one transaction with its %s entry', async (event, change) => {
    const keyId = await issued();

    expect(await writesOf(() => change(keyId))).toEqual(oneTransactionWith(event, [keysTable]));
  });

  it('lifts a ban in one transaction with its key.unbanned entry', async () => {
    const keyId = await issued();
    await banned(keyId);

    expect(await writesOf(() => service.unbanKey(keyId, TEST_CONTEXT))).toEqual(
      oneTransactionWith('key.unbanned', [countersTable]),
    );
  });

  it('puts a lost key back in one transaction with its key.restored entry', async () => {
    const { record } = await seedKey({ plan: 'pro' }, {}, { client, tableName: keysTable });
    const head = { keyHash: record.keyId, currentHash: record.keyHash };
    for (const keyHash of [record.keyId, record.keyHash]) {
      await client.send(new DeleteCommand({ TableName: keysTable, Key: { keyHash } }));
    }

    const writes = await writesOf(() =>
      service.restoreKey(record.keyId, [{ item: head }, { item: { ...record } }], TEST_CONTEXT),
    );

    expect(writes).toEqual(oneTransactionWith('key.restored', [keysTable]));
  });

  it('writes no entry for a change that changes nothing: a second revocation', async () => {
    const keyId = await issued();
    await service.revokeKey(keyId, TEST_CONTEXT);

    const writes = await writesOf(() => service.revokeKey(keyId, TEST_CONTEXT));

    expect(writes.flatMap(({ events }) => events)).toEqual([]);
  });
});
