/**
 * The admin API's lists a page at a time (issue 48, item 3): GET /keys (every key, or an owner's
 * oldest first) and GET /audit with `limit` and `cursor`, the next page in `Link` (listPets's way);
 * the keys command's `list --owner` and `audit` follow the pages.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createLambdaContext } from '../../../infra/local/events.ts';
import type { AdminOperationId } from '../../../shared/admin-operations.ts';
import { adminEvent, service } from '../../support/admin-event.ts';
import { adminHandlersOf } from '../../support/admin-handlers.ts';
import { keysCommand, seedKey } from '../../support/keys-command.ts';
import { TEST_CONTEXT } from '../../support/test-keys.ts';

const handlers = adminHandlersOf(service);

/** The answer of `operationId` to `query`. */
async function call(operationId: AdminOperationId, query: Record<string, string>) {
  const handler = handlers[operationId] as (
    e: unknown,
    c: unknown,
  ) => Promise<APIGatewayProxyResult>;
  const result = await handler(adminEvent(operationId, { query }), createLambdaContext('admin'));
  return {
    ...result,
    body: JSON.parse(result.body),
    link: result.headers?.Link as string | undefined,
  };
}

/** Every page of `operationId` from `query`, following each answer's `Link`: the bodies. */
async function walk(operationId: AdminOperationId, query: Record<string, string>) {
  const pages = [];
  for (let next: Record<string, string> | undefined = query; next; ) {
    const page = await call(operationId, next);
    expect(page.statusCode).toBe(200);
    pages.push(page.body);
    const target = page.link?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    next = target ? Object.fromEntries(new URL(target, 'http://admin').searchParams) : undefined;
  }
  return pages;
}

describe("the admin API's pages", () => {
  it('walks every key exactly once, a rolled key once, two a page', async () => {
    const owner = `walk-${Date.now()}`;
    const seeded = [];
    for (let at = 0; at < 5; at++)
      seeded.push((await seedKey({ plan: 'free', owner })).record.keyId);
    await service.rollKey(seeded[0] as string, 3600, TEST_CONTEXT);

    const pages = await walk('listKeys', { limit: '2' });
    const ids = pages.flatMap((page) =>
      page.keys.map(({ key }: { key: { keyId: string } }) => key.keyId),
    );

    expect(pages.slice(0, -1).every((page) => page.keys.length === 2)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(seeded));
  });

  it("lists an owner's keys oldest first, the owner kept in Link", async () => {
    const owner = `cognito:${Date.now()}`;
    const seeded = [];
    for (let at = 0; at < 3; at++)
      seeded.push((await seedKey({ plan: 'free', owner })).record.keyId);

    const first = await call('listKeys', { owner, limit: '2' });
    const pages = await walk('listKeys', { owner, limit: '2' });

    expect(first.link).toMatch(
      /^<\/admin\/keys\?limit=2&owner=cognito%3A\d+&cursor=[\w-]+>; rel="next"$/,
    );
    expect(
      pages.flatMap((page) => page.keys.map(({ key }: { key: { keyId: string } }) => key.keyId)),
    ).toEqual(seeded);
  });

  it('walks a window of audit entries as one read of it, two a page', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    for (let at = 0; at < 3; at++) await service.createKey({ plan: 'free' }, TEST_CONTEXT);
    const until = new Date(Date.now() + 1000).toISOString();

    const whole = await call('listAuditEntries', { since, until, limit: '100' });
    const pages = await walk('listAuditEntries', { since, until, limit: '2' });

    expect(whole.link).toBeUndefined();
    expect(pages.flatMap((page) => page.entries)).toEqual(whole.body.entries);
    expect(pages.length).toBeGreaterThan(1);
  });

  it('refuses a cursor it did not give: 400 invalid_parameter', async () => {
    const answers = await Promise.all([
      call('listKeys', { cursor: 'bm90IGEgY3Vyc29y' }),
      call('listKeys', { owner: 'someone', cursor: 'bm90IGEgY3Vyc29y' }),
      call('listAuditEntries', { since: new Date().toISOString(), cursor: 'x' }),
    ]);

    expect(answers.map(({ statusCode, body }) => `${statusCode} ${body.code}`)).toEqual(
      Array(3).fill('400 invalid_parameter'),
    );
  });

  it("prints an owner's keys alone with keys list --owner", async () => {
    const owner = `cognito:${Date.now()}-cli`;
    const mine = await seedKey({ plan: 'pro', owner });
    await seedKey({ plan: 'pro', owner: 'someone else' });

    const { code, stdout } = await keysCommand(['list', '--owner', owner]);

    expect(code).toBe(0);
    expect(stdout.slice(1).map((line) => line.split(/\s{2,}/)[0])).toEqual([mine.record.keyId]);
  });
});
