import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { allowedMethodArns } from '../../functions/handlers/authorizer.ts';
import { methodArn } from '../../infra/local/events.ts';
import {
  AuthorizerResultSchema,
  ProxyResultSchema,
  policyAllows,
} from '../../infra/local/lambda-results.ts';
import { keyScopes, REFUSED_SCOPE, SCOPES } from '../../shared/keys/scopes.ts';

const ARN = 'arn:aws:execute-api:local:000000000000:local/v1/GET/pets';

/** The policy document of these statements, parsed as an authorizer result carries it. */
function policy(...Statement: Record<string, unknown>[]) {
  return v.parse(AuthorizerResultSchema.entries.policyDocument, {
    Version: '2012-10-17',
    Statement,
  });
}

/** A policy of one statement allowing `execute-api:Invoke` on a `Resource` or a `NotResource`. */
function allowInvoke(where: { Resource: string } | { NotResource: string }) {
  return policy({ Effect: 'Allow', Action: 'execute-api:Invoke', ...where });
}

describe('policyAllows', () => {
  it('allows a method under an Allow for the whole stage', () => {
    const allowAll = allowInvoke({ Resource: 'arn:aws:execute-api:local:000000000000:local/v1/*' });

    expect(policyAllows(allowAll, ARN)).toBe(true);
  });

  it('denies another method than the one an Allow names', () => {
    const allowPost = allowInvoke({
      Resource: 'arn:aws:execute-api:local:000000000000:local/v1/POST/pets',
    });

    expect(policyAllows(allowPost, ARN)).toBe(false);
  });

  it('lets a matching Deny win over an Allow', () => {
    const allowThenDeny = policy(
      { Effect: 'Allow', Action: '*', Resource: '*' },
      {
        Effect: 'Deny',
        Action: 'execute-api:invoke',
        Resource: ['arn:aws:execute-api:local:000000000000:local/v1/GET/*'],
      },
    );

    expect(policyAllows(allowThenDeny, ARN)).toBe(false);
  });

  it('denies when no statement names the action', () => {
    const otherAction = policy({
      Effect: 'Allow',
      Action: 'execute-api:ManageConnections',
      Resource: '*',
    });

    expect(policyAllows(otherAction, ARN)).toBe(false);
  });

  it('reads NotResource as every resource but those', () => {
    const allowButPost = allowInvoke({ NotResource: '*/POST/*' });

    expect(policyAllows(allowButPost, ARN)).toBe(true);
    expect(policyAllows(allowButPost, ARN.replace('GET', 'POST'))).toBe(false);
  });

  it('admits GET /pets/7 and refuses POST /pets under an Allow of GET/pets*', () => {
    const allowGetPets = allowInvoke({
      Resource: 'arn:aws:execute-api:local:000000000000:local/v1/GET/pets*',
    });

    expect(policyAllows(allowGetPets, methodArn('GET', '/pets/7'))).toBe(true);
    expect(policyAllows(allowGetPets, methodArn('GET', '/pets'))).toBe(true);
    expect(policyAllows(allowGetPets, methodArn('POST', '/pets'))).toBe(false);
  });

  it('denies everything under a policy without statements', () => {
    expect(policyAllows(policy(), ARN)).toBe(false);
  });

  it("admits exactly the routes of a read-only key's policy, as the authorizer builds it", () => {
    const readOnly = policy({
      Effect: 'Allow',
      Action: 'execute-api:Invoke',
      Resource: allowedMethodArns(methodArn('POST', '/pets'), ['pets:read']),
    });

    expect(policyAllows(readOnly, methodArn('GET', '/pets'))).toBe(true);
    expect(policyAllows(readOnly, methodArn('GET', '/pets/7'))).toBe(true);
    expect(policyAllows(readOnly, methodArn('POST', '/pets'))).toBe(false);
  });

  it('refuses a route only to keys that lack the scope a refusal names (pets:write)', () => {
    // Every set of scopes a key can have: each scope with those it includes, and all of them.
    const keyScopeSets = [...SCOPES.map((scope) => keyScopes([scope])), keyScopes(SCOPES)];
    const routes = [
      methodArn('GET', '/pets'),
      methodArn('POST', '/pets'),
      methodArn('GET', '/pets/7'),
    ];
    for (const scopes of keyScopeSets) {
      const allowed = policy({
        Effect: 'Allow',
        Action: 'execute-api:Invoke',
        Resource: allowedMethodArns(ARN, scopes),
      });
      const refusesAny = routes.some((arn) => !policyAllows(allowed, arn));
      expect(refusesAny, scopes.join(' ')).toBe(!scopes.includes(REFUSED_SCOPE));
    }
  });

  it('treats ? as one character and other characters literally', () => {
    const oneChar = allowInvoke({ Resource: '*/v?/GET/pets' });
    const dotted = allowInvoke({ Resource: '*/v1/GET/pet.' });

    expect(policyAllows(oneChar, ARN)).toBe(true);
    expect(policyAllows(dotted, ARN)).toBe(false);
  });
});

describe('ProxyResultSchema', () => {
  it('accepts a result with headers, multi-value headers and a string body', () => {
    const result = {
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', 'X-Count': 1 },
      multiValueHeaders: { 'Set-Cookie': ['a=1', 'b=2'] },
      body: '{}',
    };

    expect(v.is(ProxyResultSchema, result)).toBe(true);
  });

  it.each([
    ['a missing statusCode', { body: '{}' }],
    ['a statusCode out of range', { statusCode: 99 }],
    ['a body that is not a string', { statusCode: 200, body: { id: 1 } }],
    ['a header value that is an object', { statusCode: 200, headers: { 'X-A': { b: 1 } } }],
    ['nothing', undefined],
  ])('refuses %s', (_, result) => {
    expect(v.is(ProxyResultSchema, result)).toBe(false);
  });
});

describe('AuthorizerResultSchema', () => {
  it('refuses a result without a policy document', () => {
    expect(v.is(AuthorizerResultSchema, { principalId: 'key_1', context: {} })).toBe(false);
  });

  it('refuses a context with a nested object, which API Gateway rejects', () => {
    const result = {
      principalId: 'key_1',
      policyDocument: { Version: '2012-10-17', Statement: [] },
      context: { limits: { perMinute: 60 } },
    };

    expect(v.is(AuthorizerResultSchema, result)).toBe(false);
  });
});
