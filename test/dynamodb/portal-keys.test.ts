/**
 * The portal API's operations on DynamoDB Local (issue 48, items 3, 4 and 8): an account's keys,
 * their limit, plans and deletion through the key service with the account as actor; another
 * account's key answered exactly as an unknown one, nothing changed, nothing recorded; a token in
 * no answer but the one that made it.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_DELETED } from '../../functions/portal/handlers/delete-account.ts';
import { accountOwner } from '../../shared/keys/accounts.ts';
import type { PortalAccount } from '../../shared/portal/portal-ports.ts';
import {
  callPortal,
  deleted,
  KEY_LIMIT,
  PORTAL_ORIGIN,
  published,
  service,
  tokenOf,
} from '../support/portal-handlers.ts';

/** A fresh verified account and its token. */
function account(overrides: Partial<PortalAccount> = {}) {
  const sub = randomUUID();
  const signedIn: PortalAccount = {
    sub,
    email: `${sub.slice(0, 8)}@example.com`,
    emailVerified: true,
    ...overrides,
  };
  return { ...signedIn, token: tokenOf(signedIn) };
}

/** A key of `owner`, created through the portal. */
async function createdKey(owner: { token: string }, name = 'CI pipeline') {
  const answer = await callPortal('createPortalKey', {
    token: owner.token,
    body: { name, scopes: ['pets:read'] },
  });
  expect(answer.status).toBe(201);
  return answer.body as { key: { keyId: string }; token: string };
}

/** Everything of a key that a refused request could change: its tokens and its audit entries. */
async function stateOf(keyId: string) {
  return {
    tokens: await service.getKey(keyId),
    history: await service.history(keyId),
  };
}

describe('the portal API on DynamoDB', () => {
  it('issues a Free key to an account, its token once, on record with the account as actor', async () => {
    const alice = account();

    const created = await callPortal('createPortalKey', {
      token: alice.token,
      body: { name: 'CI pipeline', scopes: ['pets:write'] },
    });

    expect(created.status).toBe(201);
    expect(created.headers).toMatchObject({ 'Access-Control-Allow-Origin': PORTAL_ORIGIN });
    expect(created.body.token).toMatch(/^pet_local_/);
    expect(created.body.key).toMatchObject({
      name: 'CI pipeline',
      plan: 'free',
      perMinute: 60,
      perDay: 1000,
      scopes: ['pets:read', 'pets:write'],
      status: 'active',
    });
    const { keyId } = created.body.key;
    expect((await service.getKey(keyId)).key.owner).toBe(accountOwner(alice.sub));
    const [entry] = await service.history(keyId);
    expect(entry?.actor).toEqual({
      type: 'account',
      id: `cognito:${alice.sub}`,
      name: alice.email,
    });
  });

  it('answers every route for another account’s key 404, exactly as an unknown one, changing and recording nothing', async () => {
    const alice = account();
    const mallory = account();
    const { key } = await createdKey(alice);
    const before = await stateOf(key.keyId);
    const unknown = `key_${'0'.repeat(16)}`;

    const answers = [];
    for (const keyId of [key.keyId, unknown]) {
      answers.push(
        await callPortal('getPortalKey', { token: mallory.token, keyId }),
        await callPortal('rollPortalKey', {
          token: mallory.token,
          keyId,
          body: { graceSeconds: 0 },
        }),
        await callPortal('revokePortalKey', { token: mallory.token, keyId }),
        await callPortal('getPortalKeyUsage', { token: mallory.token, keyId }),
        await callPortal('setPortalKeyPlan', {
          token: mallory.token,
          keyId,
          body: { plan: 'free' },
        }),
      );
    }
    const listed = await callPortal('listPortalKeys', { token: mallory.token });

    const [theirs, unknowns] = [answers.slice(0, 5), answers.slice(5)];
    expect(theirs.map(({ status, body }) => [status, body.code])).toEqual(
      Array(5).fill([404, 'key_not_found']),
    );
    expect(theirs.map(({ text }) => text.replace(key.keyId, unknown))).toEqual(
      unknowns.map(({ text }) => text),
    );
    expect(listed.body.keys).toEqual([]);
    expect(await stateOf(key.keyId)).toEqual(before);
  });

  it('never answers a token but in the answers that make one', async () => {
    const alice = account();
    const created = await createdKey(alice);
    const { keyId } = created.key;
    const rolled = await callPortal('rollPortalKey', {
      token: alice.token,
      keyId,
      body: { graceSeconds: 3600 },
    });

    const others = [
      await callPortal('listPortalKeys', { token: alice.token }),
      await callPortal('getPortalKey', { token: alice.token, keyId }),
      await callPortal('getPortalKeyUsage', { token: alice.token, keyId }),
      await callPortal('setPortalKeyPlan', { token: alice.token, keyId, body: { plan: 'free' } }),
      await callPortal('getAccount', { token: alice.token }),
      await callPortal('revokePortalKey', { token: alice.token, keyId }),
    ];

    expect(rolled.body.token).toMatch(/^pet_local_/);
    expect(rolled.body.key.oldTokenUntil).toBe(rolled.body.oldTokenUntil);
    for (const answer of others) {
      expect(answer.status).toBe(200);
      expect(answer.text).not.toMatch(/pet_local_|"token"|keyHash|usageIdentifier/);
    }
  });

  it('holds an account to its limit of active keys, exactly under concurrent creates', async () => {
    const alice = account();

    const answers = await Promise.all(
      Array.from({ length: KEY_LIMIT + 3 }, (_, at) =>
        callPortal('createPortalKey', {
          token: alice.token,
          body: { name: `key ${at}`, scopes: ['pets:read'] },
        }),
      ),
    );
    const refused = answers.filter(({ status }) => status === 409);
    const listed = await callPortal('listPortalKeys', { token: alice.token });
    const summary = await callPortal('getAccount', { token: alice.token });

    expect(answers.filter(({ status }) => status === 201)).toHaveLength(KEY_LIMIT);
    expect(refused[0]?.body.code).toBe('key_limit_reached');
    expect(listed.body.keys).toHaveLength(KEY_LIMIT);
    expect(summary.body.keys).toEqual({ active: KEY_LIMIT, max: KEY_LIMIT });
  });

  it('frees a revoked key’s place: revoking again writes nothing', async () => {
    const alice = account();
    const keys = [];
    for (let at = 0; at < KEY_LIMIT; at++) keys.push(await createdKey(alice, `key ${at}`));
    const first = keys[0]?.key.keyId as string;

    const revoked = await callPortal('revokePortalKey', { token: alice.token, keyId: first });
    const entries = (await service.history(first)).length;
    const again = await callPortal('revokePortalKey', { token: alice.token, keyId: first });
    const next = await callPortal('createPortalKey', {
      token: alice.token,
      body: { name: 'next', scopes: ['pets:read'] },
    });

    expect(revoked.body.key.status).toBe('revoked');
    expect(again.body.key.revokedAt).toBe(revoked.body.key.revokedAt);
    expect(await service.history(first)).toHaveLength(entries);
    expect(next.status).toBe(201);
  });

  it('refuses a key to an account whose email is not verified, and stores nothing', async () => {
    const unverified = account({ emailVerified: false });

    const refused = await callPortal('createPortalKey', {
      token: unverified.token,
      body: { name: 'too early', scopes: ['pets:read'] },
    });
    const summary = await callPortal('getAccount', { token: unverified.token });

    expect([refused.status, refused.body.code]).toEqual([403, 'email_not_verified']);
    expect(summary.body.keys.active).toBe(0);
  });

  it('answers 401 without a token, changing nothing', async () => {
    const refused = await callPortal('createPortalKey', {
      body: { name: 'anonymous', scopes: ['pets:read'] },
    });

    expect(refused.status).toBe(401);
    expect(refused.headers).toMatchObject({ 'WWW-Authenticate': 'Bearer' });
  });

  it('moves a key down to Free at once, on record; asks billing for Pro with an event, changing nothing', async () => {
    const alice = account();
    const { key } = await createdKey(alice);
    const operator = {
      actor: { type: 'iam', id: 'arn:aws:iam::1:user/ops' },
      requestId: 'r',
    } as const;
    const before = published.length;

    const upgrade = await callPortal('setPortalKeyPlan', {
      token: alice.token,
      keyId: key.keyId,
      body: { plan: 'pro' },
    });
    const unchanged = (await service.getKey(key.keyId)).key.plan;
    await service.setPlan(key.keyId, 'business', undefined, operator);
    const down = await callPortal('setPortalKeyPlan', {
      token: alice.token,
      keyId: key.keyId,
      body: { plan: 'free' },
    });

    expect([upgrade.status, upgrade.body]).toEqual([
      202,
      { upgrade: { plan: 'pro', status: 'requested' } },
    ]);
    expect(published.slice(before)).toEqual([
      {
        source: 'petstore.portal',
        detailType: 'plan.upgrade_requested',
        detail: {
          accountId: `cognito:${alice.sub}`,
          email: alice.email,
          keyId: key.keyId,
          plan: 'pro',
        },
      },
    ]);
    expect(unchanged).toBe('free');
    expect([down.status, down.body.key.plan]).toEqual([200, 'free']);
    const last = (await service.history(key.keyId)).at(-1);
    expect(last).toMatchObject({ event: 'key.plan_changed', actor: { type: 'account' } });
  });

  it('deletes an account: its active keys revoked first, on record, then the user', async () => {
    const alice = account();
    const kept = await createdKey(alice, 'kept');
    const earlier = await createdKey(alice, 'revoked before');
    await callPortal('revokePortalKey', { token: alice.token, keyId: earlier.key.keyId });

    const answer = await callPortal('deleteAccount', { token: alice.token });

    expect(answer.status).toBe(204);
    expect(deleted).toContain(alice.sub);
    expect((await service.getKey(kept.key.keyId)).key.revokedAt).toBeDefined();
    const reasons = async (keyId: string) =>
      (await service.history(keyId)).map(({ event, reason }) => `${event} ${reason ?? ''}`.trim());
    expect(await reasons(kept.key.keyId)).toEqual([
      'key.created',
      `key.revoked ${ACCOUNT_DELETED}`,
    ]);
    expect(await reasons(earlier.key.keyId)).toEqual(['key.created', 'key.revoked']);
  });

  it('lists an account’s keys oldest first, a page at a time, following Link', async () => {
    const alice = account();
    const ids = [];
    for (const name of ['one', 'two', 'three']) ids.push((await createdKey(alice, name)).key.keyId);

    const first = await callPortal('listPortalKeys', { token: alice.token, query: { limit: '2' } });
    const link = String(first.headers.Link);
    const next = new URL(link.slice(1, link.indexOf('>')), 'http://host').searchParams;
    const second = await callPortal('listPortalKeys', {
      token: alice.token,
      query: Object.fromEntries(next),
    });

    expect(link).toMatch(/^<\/portal\/keys\?limit=2&cursor=[\w-]+>; rel="next"$/);
    expect([...first.body.keys, ...second.body.keys].map(({ keyId }) => keyId)).toEqual(ids);
    expect(second.headers.Link).toBeUndefined();
  });
});
