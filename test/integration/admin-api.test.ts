/**
 * The local stack's admin API over HTTP (infra/local/admin-gateway.ts, the admin functions'
 * entries each held to its grants): AWS_IAM as API Gateway checks it. An unsigned, a badly signed
 * and a stale request each get 403 with an Error body and change nothing; an audit entry's actor
 * is the signer's principal, whatever the request claims.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { type AdminApiClient, adminApiClient } from '../../infra/cli/admin-api-client.ts';
import { ADMIN_GATEWAY_RESPONSES, gatewayResponse } from '../../infra/gateway-responses.ts';
import { type LocalAdminGateway, startAdminGateway } from '../../infra/local/admin-gateway.ts';
import { LOCAL_OPERATOR, LOCAL_REGION } from '../../infra/local/stack-files.ts';
import { DynamoDBAuditLog } from '../../shared/dynamodb/audit-log.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { readSettings } from '../../shared/settings.ts';
import { everyKey } from '../support/every-key.ts';
import { operatorCredentials } from '../support/keys-command-runner.ts';
import { seedKey } from '../support/test-keys.ts';

const service = createKeyService();
const audit = DynamoDBAuditLog.from({ client: createDocumentClient(), settings: readSettings() });
const credentials = operatorCredentials();
/** How far the gateway's clock is ahead of the real one, ms: moved to make a signature stale. */
let aheadMs = 0;
let gateway: LocalAdminGateway;

beforeAll(async () => {
  gateway = await startAdminGateway({
    port: 0,
    principals: [{ ...credentials, ...LOCAL_OPERATOR }],
    region: LOCAL_REGION,
    now: () => Date.now() + aheadMs,
  });
});
afterAll(() => gateway.close());

/** A client of the admin API signing with `signer`'s credentials (default: the stack's own). */
function admin(signer = credentials, fetch?: typeof globalThis.fetch): AdminApiClient {
  return adminApiClient({
    baseUrl: gateway.url,
    region: LOCAL_REGION,
    credentials: signer,
    fetch,
  });
}

/** Everything a refused request could have changed: the keys and the audit trail since `since`. */
async function state(since: string) {
  return {
    keys: await everyKey(service),
    entries: (
      await audit.window(
        { since, until: new Date(Date.now() + 60_000).toISOString() },
        { limit: 100 },
      )
    ).entries,
  };
}

describe('the local admin API', () => {
  const since = new Date(Date.now() - 60_000).toISOString();

  it.each([
    {
      refused: 'an unsigned request',
      send: (request: RequestInit) => fetch(`${gateway.url}/keys`, request),
      refusal: 'MISSING_AUTHENTICATION_TOKEN' as const,
    },
    {
      refused: 'a request signed with a wrong secret',
      send: () =>
        admin({ ...credentials, secretAccessKey: 'not-the-secret' }).POST('/keys', {
          body: { plan: 'free' },
        }),
      refusal: 'INVALID_SIGNATURE' as const,
    },
    {
      refused: 'a request signed more than 15 minutes ago',
      send: async () => {
        aheadMs = 16 * 60_000;
        try {
          return await admin().POST('/keys', { body: { plan: 'free' } });
        } finally {
          aheadMs = 0;
        }
      },
      refusal: 'EXPIRED_TOKEN' as const,
    },
  ])(
    'answers $refused with 403 and an Error body, and changes nothing',
    async ({ send, refusal }) => {
      const before = await state(since);

      const answer = await send({
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ plan: 'free' }),
      });
      const { status, body } =
        answer instanceof Response
          ? { status: answer.status, body: await answer.json() }
          : { status: answer.response.status, body: answer.error };

      expect(status).toBe(403);
      expect(body).toEqual(gatewayResponse(refusal, ADMIN_GATEWAY_RESPONSES).body);
      expect(body).toMatchObject({ code: 'forbidden', status: 403 });
      expect(await state(since)).toEqual(before);
    },
  );

  it('records the signer as the actor of a change, whatever the request claims to be', async () => {
    const { record } = await seedKey({ plan: 'free', owner: 'actor test' });

    // GIVEN a signed request that names another principal in its headers
    const claimingHeaders: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      request.headers.set('User-Agent', 'billing-worker/2.1');
      request.headers.set('X-Forwarded-For', '203.0.113.7');
      request.headers.set('X-Amz-User-Arn', 'arn:aws:iam::111111111111:user/someone-else');
      return fetch(request);
    };
    const path = { keyId: record.keyId };
    const changed = await admin(credentials, claimingHeaders).PUT('/keys/{keyId}/plan', {
      params: { path },
      body: { plan: 'pro', reason: 'invoice paid' },
    });
    // AND one whose body claims an actor
    const claimed = await admin().PUT('/keys/{keyId}/plan', {
      params: { path },
      // @ts-expect-error: no body of the document names an actor, and the API refuses one too.
      body: { plan: 'business', actor: 'arn:aws:iam::111111111111:user/someone-else' },
    });

    // THEN the change is recorded as the signer's; the body's claim is refused and changes nothing
    expect(changed.response.status).toBe(200);
    expect(claimed.response.status).toBe(400);
    expect(claimed.error).toMatchObject({ code: 'invalid_body' });
    const { data } = await admin().GET('/keys/{keyId}/history', { params: { path } });
    expect(data?.entries).toEqual([
      expect.objectContaining({
        event: 'key.plan_changed',
        keyId: record.keyId,
        actor: { type: 'iam', id: LOCAL_OPERATOR.userArn },
        sourceIp: '127.0.0.1',
        userAgent: 'billing-worker/2.1',
        changes: { plan: { before: 'free', after: 'pro' } },
        reason: 'invoice paid',
        requestId: changed.response.headers.get('x-amzn-requestid'),
      }),
    ]);
    expect((await service.getKey(record.keyId)).key).toMatchObject({ plan: 'pro' });
  });
});
