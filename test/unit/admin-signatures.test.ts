import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApiClient } from '../../infra/cli/admin-api-client.ts';
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
  new AdminApiClient({ baseUrl, region: REGION, credentials, fetch });

describe('checkSignature of the local admin API', () => {
  it('admits a request the SDK signed with the stack’s credentials, naming the signer', async () => {
    const answer = await client().send({
      method: 'POST',
      path: ['keys', 'key_01 ä', 'plan'],
      query: { since: '2026-01-01T00:00:00Z', actor: operator.userArn },
      body: { plan: 'pro', actor: 'arn:aws:iam::111111111111:user/someone-else' },
    });

    expect(answer).toMatchObject({ status: 200, body: { signer: operator.userArn } });
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
    const answer = await client({ ...operator, secretAccessKey: 'not-the-secret' }).send({
      method: 'GET',
      path: ['keys'],
    });

    expect(answer).toMatchObject({
      status: 403,
      body: { refusal: 'INVALID_SIGNATURE', reason: expect.stringContaining('does not match') },
    });
  });

  it('refuses an access key the stack does not know', async () => {
    const answer = await client({ ...operator, accessKeyId: 'PSLSTRANGER000000001' }).send({
      method: 'GET',
      path: ['keys'],
    });

    expect(answer).toMatchObject({
      status: 403,
      body: { refusal: 'UNAUTHORIZED', reason: expect.stringContaining('invalid') },
    });
  });

  it('refuses a signature more than 15 minutes old, and admits one 14 minutes old', async () => {
    skewMs = 16 * 60_000;
    const stale = await client().send({ method: 'GET', path: ['keys'] });
    skewMs = 14 * 60_000;
    const recent = await client().send({ method: 'GET', path: ['keys'] });
    skewMs = 0;

    expect(stale).toMatchObject({
      status: 403,
      body: { refusal: 'EXPIRED_TOKEN', reason: expect.stringContaining('Signature expired') },
    });
    expect(recent.status).toBe(200);
  });

  it('refuses a request whose body was changed after signing', async () => {
    const tamper: typeof fetch = (url, init) =>
      fetch(url, { ...init, body: JSON.stringify({ plan: 'enterprise' }) });

    const answer = await client(operator, tamper).send({
      method: 'POST',
      path: ['keys', 'key_1', 'plan'],
      body: { plan: 'free' },
    });

    expect(answer.status).toBe(403);
  });

  it('refuses a request sent to another path than the one signed', async () => {
    const redirect: typeof fetch = (url, init) =>
      fetch(String(url).replace('/keys/key_1', '/keys/key_2'), init);

    const answer = await client(operator, redirect).send({
      method: 'DELETE',
      path: ['keys', 'key_1'],
    });

    expect(answer.status).toBe(403);
  });
});
