/**
 * The authorizer's lookup (`KeyLookup`) on DynamoDB: a token's key, found by the token's SHA-256,
 * never the token itself; what the authorizer makes of it (limits, refusals).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { keyRefusal, limitsOfKey } from '../../shared/keys/key-records.ts';
import { generateToken, hashToken, TOKEN_PREFIXES } from '../../shared/keys/token.ts';
import {
  client,
  currentOf,
  issueKey,
  setNow,
  store,
  storedItem,
  tableName,
} from '../support/keys-table.ts';

describe("DynamoDBKeyStore as the authorizer's key lookup", () => {
  it('issues a key whose record holds the hash of the token, never the token', async () => {
    setNow('2030-01-02T03:04:05.678Z');
    const { record, token } = await issueKey({ plan: 'business', owner: 'Acme Ltd' });

    expect(record).toEqual({
      keyHash: hashToken(token),
      keyId: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      plan: 'business',
      owner: 'Acme Ltd',
      scopes: ['pets:read', 'pets:write'],
      usageIdentifier: expect.any(String),
      createdAt: '2030-01-02T03:04:05.678Z',
    });
    expect(record.usageIdentifier).not.toBe(token);
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: { keyHash: record.keyHash } }),
    );
    expect(Item).toEqual(record);
    const stored = JSON.stringify(Item);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(TOKEN_PREFIXES.local.length));
  });

  it('finds a key by its token and by its id', async () => {
    const { record, token } = await issueKey({ plan: 'pro' });

    expect(await store.findByToken(token)).toEqual(record);
    expect(await currentOf(record.keyId)).toEqual(record);
  });

  it('finds nothing for an unknown token or id', async () => {
    expect(await store.findByToken(generateToken())).toBeUndefined();
    expect(await currentOf('key_0000000000000000')).toBeUndefined();
  });

  it('issues an Enterprise key with its own limits on the record', async () => {
    const { record, token } = await issueKey({
      plan: 'enterprise',
      limits: { perMinute: 5_000, perDay: 2_000_000 },
    });

    expect(record).toMatchObject({ plan: 'enterprise', perMinute: 5_000, perDay: 2_000_000 });
    expect(await store.findByToken(token)).toEqual(record);
    expect(limitsOfKey(record)).toEqual({ perMinute: 5_000, perDay: 2_000_000 });
  });

  it('stores no limits on a key of a standard plan, which reads them from its plan', async () => {
    const { record } = await issueKey({ plan: 'pro' });

    const item = await storedItem(record.keyHash);
    expect(item).not.toHaveProperty('perMinute');
    expect(item).not.toHaveProperty('perDay');
    expect(limitsOfKey(record)).toEqual({ perMinute: 300, perDay: 10_000 });
  });

  it.each([
    [{}, undefined],
    [{ revokedAt: '2030-01-01T00:00:00.000Z' }, 'revoked'],
    [{ expiresAt: '2030-01-01T00:00:00.000Z' }, 'expired'],
    [{ expiresAt: '2030-01-01T00:00:00.001Z' }, undefined],
    [{ graceUntil: '2030-01-01T00:00:00.000Z' }, 'rolled'],
    [{ graceUntil: '2030-01-01T00:00:00.001Z' }, undefined],
  ])('keyRefusal of %j at 2030-01-01T00:00:00Z is %s', (fields, refusal) => {
    const record = { keyHash: 'h', keyId: 'k', plan: 'free', usageIdentifier: 'u', createdAt: '' };
    expect(
      keyRefusal({ ...record, ...fields } as never, Date.parse('2030-01-01T00:00:00.000Z')),
    ).toBe(refusal);
  });

  it("is what createContainer builds from KEYS_TABLE_NAME: the authorizer's lookup", async () => {
    const { record, token } = await issueKey({ plan: 'pro' });
    expect(await createContainer().keys.findByToken(token)).toEqual(record);
  });
});
