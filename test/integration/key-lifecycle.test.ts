/**
 * Keys over HTTP on the local gateway (its authorizer cache included, on a clock the test moves):
 * a roll's grace, expiry, malformed tokens refused without a read of the keys table, and the
 * rate-limit counters of a key continuing across a roll.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meterEveryDocumentClient } from '../../bench/meter.ts';
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../infra/routes.ts';
import { KEYS_TABLE } from '../../shared/dynamodb/tables.ts';
import { generateToken } from '../../shared/keys/token.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { earlyInUtcMinute } from '../support/clock.ts';
import { seedKey, TEST_CONTEXT } from '../support/test-keys.ts';

const keys = createKeyService();
const keysTable = requiredSetting(readSettings(), KEYS_TABLE.envVar);
const meter = meterEveryDocumentClient();
/** How far the gateway's clock is ahead of the real one, ms: moved to expire its cache. */
let aheadMs = 0;
let gateway: LocalGateway;

beforeAll(async () => {
  gateway = await startGateway({ port: 0, now: () => Date.now() + aheadMs });
});
afterAll(() => gateway.close());

/** `GET /pets?limit=1` with a bearer token. */
function listPets(token: string): Promise<Response> {
  return fetch(`${gateway.url}/pets?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
}

/** The statuses of `GET /pets` with each token, in order. */
async function statuses(...tokens: string[]): Promise<number[]> {
  const answers = [];
  for (const token of tokens) answers.push((await listPets(token)).status);
  return answers;
}

/** Moves the gateway's clock past the authorizer cache's TTL: every cached result is gone. */
function expireAuthorizerCache(): void {
  aheadMs += (AUTHORIZER_CACHE_TTL_SECONDS + 1) * 1000;
}

/** Waits until the real clock is past an ISO 8601 time. */
async function waitUntil(iso: string | undefined): Promise<void> {
  await sleep(Math.max(0, Date.parse(iso ?? '') - Date.now()) + 50);
}

describe('a rolled key', () => {
  it('works with both tokens during the grace, and refuses the old one after it, within the cache TTL', async () => {
    const { record, token: oldToken } = await seedKey({ plan: 'pro', owner: 'roller' });
    const rolled = await keys.rollKey(record.keyId, 2, TEST_CONTEXT);
    const newToken = rolled?.token ?? '';

    expect(await statuses(oldToken, newToken)).toEqual([200, 200]);
    await waitUntil(rolled?.graceUntil);
    // The gateway reuses the old token's cached Allow until its TTL runs out, as API Gateway does.
    expect(await statuses(oldToken)).toEqual([200]);
    expireAuthorizerCache();
    expect(await statuses(oldToken, newToken)).toEqual([401, 200]);
  });

  it('continues its rate-limit counters: the new token sees what the old one used', async () => {
    const { record, token: oldToken } = await seedKey({ plan: 'free' });
    await earlyInUtcMinute(55); // both calls in one minute window, so `remaining` drops by one
    const first = await listPets(oldToken);
    const rolled = await keys.rollKey(record.keyId, 60, TEST_CONTEXT);
    const second = await listPets(rolled?.token ?? '');

    const remaining = (response: Response) => Number(response.headers.get('x-ratelimit-remaining'));
    expect(second.status).toBe(200);
    expect(remaining(second)).toBe(remaining(first) - 1);
  });

  it('ends every token when revoked', async () => {
    const { record, token: oldToken } = await seedKey({ plan: 'free' });
    const rolled = await keys.rollKey(record.keyId, 3600, TEST_CONTEXT);
    await keys.revokeKey(record.keyId, TEST_CONTEXT);

    expect(await statuses(oldToken, rolled?.token ?? '')).toEqual([401, 401]);
  });
});

describe('an expiring key', () => {
  it('answers 401 for an expired key', async () => {
    const { token } = await seedKey({
      plan: 'free',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });

    const response = await listPets(token);

    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('works until it expires, then answers 401 within the cache TTL', async () => {
    const { record, token } = await seedKey({
      plan: 'free',
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });

    expect(await statuses(token)).toEqual([200]);
    await waitUntil(record.expiresAt);
    expireAuthorizerCache();
    expect(await statuses(token)).toEqual([401]);
  });
});

describe('a malformed token', () => {
  const valid = generateToken('local');
  it.each([
    ['a wrong checksum', `${valid.slice(0, -1)}${valid.endsWith('0') ? '1' : '0'}`],
    ['the prefix of another stage', generateToken('production')],
    ['no Petstore prefix', `ghp_${'a'.repeat(36)}`],
  ])('with %s is answered 401 without reading the keys table', async (_, token) => {
    const readsBefore = meter.tables[keysTable] ?? 0;

    const response = await listPets(token);

    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'unauthorized' });
    expect(meter.tables[keysTable] ?? 0).toBe(readsBefore);
  });

  it('costs a read when well-formed, to find it unknown (the meter counts)', async () => {
    const readsBefore = meter.tables[keysTable] ?? 0;

    expect(await statuses(generateToken('local'))).toEqual([401]);

    expect(meter.tables[keysTable]).toBe(readsBefore + 1);
  });
});
