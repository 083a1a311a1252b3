import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminApiClient } from '../../infra/cli/admin-api-client.ts';
import { receivedHeaders } from '../../infra/local/server.ts';
import { checkSignature, type SigningPrincipal } from '../../infra/local/sigv4.ts';

const REGION = 'us-east-1';
const operator: SigningPrincipal = {
  accessKeyId: 'PSLOPERATOR0000000001',
  secretAccessKey: 'operator-secret-of-forty-characters-long',
  userArn: 'arn:aws:iam::000000000000:user/petstore-local-operator',
  userId: 'AIDAPETSTORELOCALOPERATOR',
};

/** The gateway's clock offset from the client's, milliseconds: a test moves it. */
let skewMs = 0;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  // GIVEN a server that answers each request with the outcome of its signature check
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://gateway');
    const check = await checkSignature(
      {
        method: request.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: receivedHeaders(request),
        body: Buffer.concat(chunks),
      },
      [operator],
      REGION,
      Date.now() + skewMs,
    );
    const [status, body] =
      'principal' in check
        ? [200, { signer: check.principal.userArn }]
        : [403, { refusal: check.refusal, reason: check.reason }];
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin`;
});
afterAll(() => new Promise((closed) => server.close(closed)));

const client = (credentials = operator, fetch?: typeof globalThis.fetch) =>
  adminApiClient({ baseUrl, region: REGION, credentials, fetch });

/** What the server answers: the signer, or the refusal and its reason. */
const answerOf = ({
  data,
  error,
  response,
}: {
  data?: unknown;
  error?: unknown;
  response: Response;
}) => ({
  status: response.status,
  body: data ?? error,
});

describe('checkSignature of the local admin API', () => {
  it('admits requests the SDK signed with the stack’s credentials, naming the signer', async () => {
    const admin = client();

    const answers = await Promise.all([
      admin.PUT('/keys/{keyId}/plan', {
        params: { path: { keyId: 'key_01 ä' } },
        body: { plan: 'pro', reason: 'signed: path, body and headers' },
      }),
      admin.GET('/audit', {
        params: { query: { since: '2026-01-01T00:00:00Z', actor: operator.userArn } },
      }),
    ]);

    expect(answers.map(answerOf)).toEqual(
      Array(2).fill({ status: 200, body: { signer: operator.userArn } }),
    );
  });

  it('refuses an unsigned request as MISSING_AUTHENTICATION_TOKEN', async () => {
    const response = await fetch(`${baseUrl}/keys`);

    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      refusal: 'MISSING_AUTHENTICATION_TOKEN',
      reason: expect.stringContaining('Missing Authentication Token'),
    });
  });

  it('refuses a signature made with a wrong secret', async () => {
    const answer = await client({ ...operator, secretAccessKey: 'not-the-secret' }).GET('/keys');

    expect(answerOf(answer)).toMatchObject({
      status: 403,
      body: { refusal: 'INVALID_SIGNATURE', reason: expect.stringContaining('does not match') },
    });
  });

  it('refuses an access key the stack does not know', async () => {
    const answer = await client({ ...operator, accessKeyId: 'PSLSTRANGER000000001' }).GET('/keys');

    expect(answerOf(answer)).toMatchObject({
      status: 403,
      body: { refusal: 'UNAUTHORIZED', reason: expect.stringContaining('invalid') },
    });
  });

  it('refuses a signature more than 15 minutes old, and admits one 14 minutes old', async () => {
    skewMs = 16 * 60_000;
    const stale = await client().GET('/keys');
    skewMs = 14 * 60_000;
    const recent = await client().GET('/keys');
    skewMs = 0;

    expect(answerOf(stale)).toMatchObject({
      status: 403,
      body: { refusal: 'EXPIRED_TOKEN', reason: expect.stringContaining('Signature expired') },
    });
    expect(recent.response.status).toBe(200);
  });

  it('refuses a request whose body was changed after signing', async () => {
    const tamper: typeof fetch = (input, init) => {
      const { url, method, headers } = new Request(input, init);
      return fetch(url, { method, headers, body: JSON.stringify({ plan: 'enterprise' }) });
    };

    const answer = await client(operator, tamper).PUT('/keys/{keyId}/plan', {
      params: { path: { keyId: 'key_1' } },
      body: { plan: 'free' },
    });

    expect(answer.response.status).toBe(403);
  });

  it('refuses a request sent to another path than the one signed', async () => {
    const redirect: typeof fetch = (input, init) => {
      const { url, method, headers } = new Request(input, init);
      return fetch(url.replace('/keys/key_1', '/keys/key_2'), { method, headers });
    };

    const answer = await client(operator, redirect).GET('/keys/{keyId}', {
      params: { path: { keyId: 'key_1' } },
    });

    expect(answer.response.status).toBe(403);
  });
});

describe('the typed admin client', () => {
  it("sends what it is given: only the type check holds it to the document's paths, methods, bodies", async () => {
    const admin = client();
    const path = { keyId: 'key_0123456789abcdef' };

    const sent = await Promise.all([
      // @ts-expect-error: the document has no DELETE /keys/{keyId}.
      admin.DELETE('/keys/{keyId}', { params: { path } }),
      // @ts-expect-error: the document has no path /keys/{keyId}/tokens.
      admin.GET('/keys/{keyId}/tokens', { params: { path } }),
      // @ts-expect-error: setKeyPlan's body requires a plan.
      admin.PUT('/keys/{keyId}/plan', { params: { path }, body: { reason: 'no plan' } }),
      // @ts-expect-error: createKey's body has no actor (the API takes it from the signature).
      admin.POST('/keys', { body: { plan: 'free', actor: 'arn:aws:iam::111111111111:root' } }),
    ]);

    // Signed and sent all the same: the server here admits every signed request.
    expect(sent.map(({ response }) => response.status)).toEqual([200, 200, 200, 200]);
  });
});
