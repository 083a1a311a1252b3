import { beforeAll, describe, expect, it } from 'vitest';
import { authorizerHandler } from '../../functions/handlers/authorizer.ts';
import { createAuthorizerEvent, createLambdaContext } from '../../infra/local/events.ts';
import type { ApiKeyRecord } from '../../shared/keys/key-records.ts';
import type { Scope } from '../../shared/keys/scopes.ts';
import { generateToken } from '../../shared/keys/token.ts';
import { OPERATIONS } from '../../shared/operations.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';

const container = inMemoryContainer();
const handler = authorizerHandler(container);
const keys = container.keys;

/** Invokes the authorizer as Lambda does, with a fresh context. */
function authorize(event: ReturnType<typeof authorizerEvent>) {
  return handler(event, createLambdaContext('petstore-authorizer'));
}

/** The authorizer event of `GET /pets/7` with these request headers. */
function authorizerEvent(headers: Record<string, string>) {
  return createAuthorizerEvent({
    method: 'GET',
    resource: '/pets/{petId}',
    path: '/pets/7',
    pathParameters: { petId: '7' },
    headers,
  });
}

/** The local stack's API and stage in a method ARN. */
const LOCAL_API = 'arn:aws:execute-api:local:000000000000:local/v1';

/**
 * The method ARN of each operation (shared/operations.ts) a key of `scopes` may call, on the API
 * and stage `api`, a path parameter as `*`.
 */
function methodArns(api: string, ...scopes: Scope[]): string[] {
  return OPERATIONS.filter(({ scope }) => scopes.includes(scope)).map(
    ({ method, path }) => `${api}/${method}${path.replace(/\{\w+\}/g, '*')}`,
  );
}

let pro: { record: ApiKeyRecord; token: string };
let revoked: { record: ApiKeyRecord; token: string };

beforeAll(async () => {
  pro = await keys.seedKey({ plan: 'pro', owner: 'Acme' });
  revoked = await keys.seedKey({ plan: 'free' }, { revokedAt: new Date().toISOString() });
});

describe('authorizer', () => {
  it('allows every route for a key with both scopes, with its id, plan, limits and usage identifier', async () => {
    const result = await authorize(authorizerEvent({ Authorization: `Bearer ${pro.token}` }));

    expect(result).toEqual({
      principalId: pro.record.keyId,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: methodArns(LOCAL_API, 'pets:read', 'pets:write'),
          },
        ],
      },
      context: { keyId: pro.record.keyId, plan: 'pro', perMinute: 300, perDay: 10_000 },
      usageIdentifierKey: pro.record.usageIdentifier,
    });
    expect(result.usageIdentifierKey).not.toBe(pro.token);
    expect(methodArns(LOCAL_API, 'pets:read', 'pets:write')).toEqual(
      expect.arrayContaining([
        `${LOCAL_API}/GET/pets`,
        `${LOCAL_API}/POST/pets`,
        `${LOCAL_API}/GET/pets/*`,
      ]),
    );
  });

  it('passes an Enterprise key its own limits', async () => {
    const enterprise = await keys.seedKey({
      plan: 'enterprise',
      limits: { perMinute: 5_000, perDay: 2_000_000 },
    });
    const result = await authorize(
      authorizerEvent({ Authorization: `Bearer ${enterprise.token}` }),
    );
    expect(result.context).toEqual({
      keyId: enterprise.record.keyId,
      plan: 'enterprise',
      perMinute: 5_000,
      perDay: 2_000_000,
    });
  });

  it("allows a read-only key the read routes of the called method ARN's API, whatever it calls", async () => {
    const reader = await keys.seedKey({ plan: 'pro', scopes: ['pets:read'] });
    const event = {
      ...authorizerEvent({ Authorization: `Bearer ${reader.token}` }),
      methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/v1/POST/pets',
    };

    const result = await authorize(event);

    expect(result.policyDocument.Statement).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Allow',
        Resource: methodArns(
          'arn:aws:execute-api:eu-west-1:123456789012:a1b2c3d4e5/v1',
          'pets:read',
        ),
      },
    ]);
  });

  it('accepts the scheme and the header name in lower case', async () => {
    const result = await authorize(authorizerEvent({ authorization: `bearer ${pro.token}` }));
    expect(result.principalId).toBe(pro.record.keyId);
  });

  it('throws Unauthorized when the Authorization header is missing', async () => {
    await expect(authorize(authorizerEvent({}))).rejects.toThrow(/^Unauthorized$/);
  });

  it('throws Unauthorized for another scheme or a token without scheme', async () => {
    for (const value of [`Basic ${pro.token}`, pro.token, 'Bearer', `Bearer ${pro.token} extra`]) {
      await expect(authorize(authorizerEvent({ Authorization: value })), value).rejects.toThrow(
        /^Unauthorized$/,
      );
    }
  });

  it('throws Unauthorized for an unknown key', async () => {
    await expect(
      authorize(authorizerEvent({ Authorization: `Bearer ${generateToken()}` })),
    ).rejects.toThrow(/^Unauthorized$/);
  });

  it('throws Unauthorized when the usage identifier or the hash is sent instead of the token', async () => {
    for (const value of [pro.record.usageIdentifier, pro.record.keyHash, pro.record.keyId]) {
      await expect(
        authorize(authorizerEvent({ Authorization: `Bearer ${value}` })),
      ).rejects.toThrow(/^Unauthorized$/);
    }
  });

  it('throws Unauthorized for a revoked key', async () => {
    await expect(
      authorize(authorizerEvent({ Authorization: `Bearer ${revoked.token}` })),
    ).rejects.toThrow(/^Unauthorized$/);
  });
});
