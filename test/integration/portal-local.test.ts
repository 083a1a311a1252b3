/**
 * The portal's back end under `npm start`, over HTTP as the portal uses it (issue 48, items 1, 3
 * and 8), on one local stack for the file: sign-up with the printed code, sign-in through the
 * authorization code flow with PKCE at the stand-in, a key rolled (its old token refused) and used
 * on the Petstore API, counted in its usage, and revoked, another account's 404s, the gateway's 401
 * and CORS, an upgrade asked for on the local event bus and completed with `npm run keys --
 * set-plan`, and an account's deletion (its keys revoked, its sign-in gone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freshStack,
  START_TIMEOUT_MS,
  type StackOptions,
  startedStack,
  stopAll,
  waitFor,
} from '../support/local-stack.ts';
import { type PortalSignIn, signIn, signUp } from '../support/portal-sign-in.ts';
import { run } from '../support/processes.ts';

let api: string;
let portalApi: string;
let portal: PortalSignIn;
let printed: () => string;
let stack: StackOptions;

beforeAll(async () => {
  stack = await freshStack();
  const { started, url } = await startedStack(stack);
  api = url;
  [, portalApi = ''] = await waitFor(started, /^Portal API: (\S+)$/m, START_TIMEOUT_MS);
  // The sign-in's redirect: the portal's own URL, on the free port the stack took.
  const [, portalUrl = ''] = await waitFor(started, /^Portal: (\S+)$/m, START_TIMEOUT_MS);
  const [, issuer = ''] = await waitFor(
    started,
    /^Portal sign-in \(OpenID provider\): (\S+)$/m,
    START_TIMEOUT_MS,
  );
  printed = started.stdout;
  portal = {
    issuer,
    portalUrl,
    codeFor: async (email) =>
      (
        await waitFor(
          started,
          new RegExp(`^Verification code for ${email}: (\\d{6})$`, 'm'),
          10_000,
        )
      )[1] ?? '',
  };
}, START_TIMEOUT_MS * 2);
afterAll(stopAll);

/** A call of the portal API with `token`. */
function call(token: string, path: string, init: RequestInit = {}) {
  return fetch(`${portalApi}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...init.headers,
    },
  });
}

/** A new account, signed up, verified and signed in: its email and ID token. */
async function signedIn(name: string) {
  const email = `${name}-${Date.now()}@example.com`;
  await signUp(portal, email, 'a long enough password');
  return { email, token: await signIn(portal, email, 'a long enough password') };
}

describe('the portal on npm start', () => {
  it('signs up, signs in with PKCE, and manages a key that works on the API', async () => {
    const alice = await signedIn('alice');
    expect(printed()).toMatch(new RegExp(`^Verification code for ${alice.email}: \\d{6}$`, 'm'));

    const created = await call(alice.token, '/keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'laptop', scopes: ['pets:read'] }),
    });
    const { key, token } = (await created.json()) as { key: { keyId: string }; token: string };
    const rolled = (await (
      await call(alice.token, `/keys/${key.keyId}/roll`, {
        method: 'POST',
        body: JSON.stringify({ graceSeconds: 0 }),
      })
    ).json()) as { token: string };
    // Neither token was used before: the authorizer's 60 s cache holds no answer for them.
    const oldToken = await fetch(`${api}/pets`, { headers: { authorization: `Bearer ${token}` } });
    const pets = await fetch(`${api}/pets`, {
      headers: { authorization: `Bearer ${rolled.token}` },
    });
    const usage = (await (await call(alice.token, `/keys/${key.keyId}/usage`)).json()) as {
      days: unknown[];
      minute: unknown;
    };
    const revoked = await call(alice.token, `/keys/${key.keyId}/revoke`, { method: 'POST' });

    expect(created.status).toBe(201);
    expect(oldToken.status).toBe(401);
    expect(pets.status).toBe(200);
    expect(usage.days[0]).toMatchObject({ admitted: 1, refused: 0 });
    expect(usage.minute).toMatchObject({ limit: 60, remaining: 59 });
    expect([
      revoked.status,
      ((await revoked.json()) as { key: { status: string } }).key.status,
    ]).toEqual([200, 'revoked']);
  });

  it("answers another account's key 404 on every route, and lists none of it", async () => {
    const alice = await signedIn('owner');
    const mallory = await signedIn('mallory');
    const { key } = (await (
      await call(alice.token, '/keys', {
        method: 'POST',
        body: JSON.stringify({ name: 'mine', scopes: ['pets:read'] }),
      })
    ).json()) as { key: { keyId: string } };

    const answers = await Promise.all([
      call(mallory.token, `/keys/${key.keyId}`),
      call(mallory.token, `/keys/${key.keyId}/usage`),
      call(mallory.token, `/keys/${key.keyId}/roll`, {
        method: 'POST',
        body: '{"graceSeconds":0}',
      }),
      call(mallory.token, `/keys/${key.keyId}/revoke`, { method: 'POST' }),
      call(mallory.token, `/keys/${key.keyId}/plan`, { method: 'PUT', body: '{"plan":"free"}' }),
    ]);
    const listed = (await (await call(mallory.token, '/keys')).json()) as { keys: unknown[] };
    const still = (await (await call(alice.token, `/keys/${key.keyId}`)).json()) as {
      key: { status: string };
    };

    expect(answers.map(({ status }) => status)).toEqual([404, 404, 404, 404, 404]);
    expect(listed.keys).toEqual([]);
    expect(still.key.status).toBe('active');
  });

  it('refuses a token the stand-in did not sign, at the gateway, and answers the preflight', async () => {
    const [header, payload] = (await signedIn('forger')).token.split('.');
    const forged = `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`;

    const refused = await call(forged, '/account');
    const preflight = await fetch(`${portalApi}/keys`, { method: 'OPTIONS' });

    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer');
    expect(await refused.json()).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toBe(
      'Authorization,Content-Type',
    );
  });

  it('asks for Pro on the local event bus, changing nothing, and npm run keys -- set-plan completes it', async () => {
    const carol = await signedIn('carol');
    const { key } = (await (
      await call(carol.token, '/keys', {
        method: 'POST',
        body: JSON.stringify({ name: 'growing', scopes: ['pets:read'] }),
      })
    ).json()) as { key: { keyId: string } };
    const planOf = async () =>
      ((await (await call(carol.token, `/keys/${key.keyId}`)).json()) as { key: { plan: string } })
        .key.plan;

    const asked = await call(carol.token, `/keys/${key.keyId}/plan`, {
      method: 'PUT',
      body: '{"plan":"pro"}',
    });
    const { events } = (await (await fetch(new URL('/__local/events', api))).json()) as {
      events: { source: string; detailType: string; detail: Record<string, unknown> }[];
    };
    const before = await planOf();
    // What a billing system does once paid: the admin API's setKeyPlan, here through the command.
    const completed = await run(
      process.execPath,
      ['--import', 'tsx', 'infra/cli/keys.ts', 'set-plan', key.keyId, '--plan', 'pro'],
      { PETSTORE_DIR: stack.dir, ADMIN_PORT: String(stack.ADMIN_PORT) },
    );

    expect([asked.status, await asked.json()]).toEqual([
      202,
      { upgrade: { plan: 'pro', status: 'requested' } },
    ]);
    expect(events.filter(({ detail }) => detail.keyId === key.keyId)).toMatchObject([
      {
        source: 'petstore.portal',
        detailType: 'plan.upgrade_requested',
        detail: {
          accountId: expect.stringMatching(/^cognito:/),
          email: carol.email,
          keyId: key.keyId,
          plan: 'pro',
        },
      },
    ]);
    expect(before).toBe('free');
    expect(completed.status, completed.stderr).toBe(0);
    expect(await planOf()).toBe('pro');
  });

  it('deletes an account: its keys revoked first, then it cannot sign in', async () => {
    const bob = await signedIn('bob');
    const { key } = (await (
      await call(bob.token, '/keys', {
        method: 'POST',
        body: JSON.stringify({ name: 'soon gone', scopes: ['pets:read'] }),
      })
    ).json()) as { key: { keyId: string } };

    const deleted = await call(bob.token, '/account', { method: 'DELETE' });
    const afterwards = await call(bob.token, `/keys/${key.keyId}`);

    expect(deleted.status).toBe(204);
    expect(((await afterwards.json()) as { key: { status: string } }).key.status).toBe('revoked');
    await expect(signIn(portal, bob.email, 'a long enough password')).rejects.toThrow();
  });
});
