/**
 * The rate limits of docs/rate-limits.md as a client sees them over HTTP through the
 * local gateway: the per-key fixed windows counted in DynamoDB Local, the headers on every
 * authenticated answer, 429 with Retry-After, and the temporary ban. `Date` is frozen at the
 * start of a UTC minute tomorrow (the SDK's timers keep running), so a window never rolls over
 * mid-test unless a test moves the clock, and the counter items expire after the real now.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createKeyService } from '../../functions/admin/composition-root.ts';
import { type LocalGateway, startGateway } from '../../infra/local/gateway.ts';
import { createContainer } from '../../shared/dynamodb/dynamodb-container.ts';
import { PLAN_IDS, PLANS, type StandardPlanId } from '../../shared/plans.ts';
import { issueToken, petstoreClient } from '../support/api-client.ts';
import { DAY_AFTER_TOMORROW, tomorrowAt, utcInstant } from '../support/clock.ts';
import { seedKey, TEST_CONTEXT } from '../support/test-keys.ts';

const START = tomorrowAt('10:30:00');
const MIDNIGHT = utcInstant(DAY_AFTER_TOMORROW, '00:00:00') / 1000;
const keys = createKeyService();
let gateway: LocalGateway;

beforeAll(async () => {
  // These tests are about exact counting, not about a slow store: on a loaded machine DynamoDB
  // Local may take longer than the limiter's deadline (5 s), which would admit uncounted.
  process.env.RATE_LIMIT_DEADLINE_MS = '60000';
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(START);
  gateway = await startGateway({ port: 0 });
});
afterAll(async () => {
  await gateway.close();
  vi.useRealTimers();
});

/** Moves the frozen clock by `seconds`. */
function advance(seconds: number) {
  vi.setSystemTime(Date.now() + seconds * 1000);
}

interface Answer {
  status: number;
  headers: Headers;
  body: { code?: string };
}

async function get(token: string, path = '/pets?limit=1'): Promise<Answer> {
  const response = await fetch(`${gateway.url}${path}`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer['body'],
  };
}

/** Sends `count` requests, at most 32 in flight at a time. */
async function getMany(token: string, count: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let sent = 0; sent < count; sent += 32) {
    const batch = Array.from({ length: Math.min(32, count - sent) }, () => get(token));
    answers.push(...(await Promise.all(batch)));
  }
  return answers;
}

/** Sends `count` requests one after another. */
async function getInTurn(token: string, count: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i += 1) answers.push(await get(token));
  return answers;
}

const statuses = (answers: Answer[]) => answers.map((a) => a.status);
const codes = (answers: Answer[]) => answers.map((a) => a.body.code);

describe('counting per key', () => {
  it('admits exactly 60 of 90 concurrent requests of a fresh Free key and answers 30 × 429', async () => {
    const token = await issueToken('free');
    const answers = await Promise.all(Array.from({ length: 90 }, () => get(token)));

    const admitted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(admitted).toHaveLength(60);
    expect(refused).toHaveLength(30);
    expect(
      admitted.map((a) => Number(a.headers.get('x-ratelimit-remaining'))).sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 60 }, (_, i) => i));
    for (const answer of refused) {
      expect(answer.body).toEqual({
        code: 'rate_limited',
        message: 'Rate limit of 60 requests per minute exceeded; retry after 60 seconds.',
        status: 429,
      });
      expect(answer.headers.get('retry-after')).toBe('60');
      expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(answer.headers.get('x-ratelimit-reset')).toBe(String(START / 1000 + 60));
    }
  });

  it.each(PLAN_IDS)(
    'admits exactly the %s plan per-minute limit, then 429',
    async (plan: StandardPlanId) => {
      const { perMinute } = PLANS[plan];
      const answers = await getMany(await issueToken(plan), perMinute + 5);
      expect(statuses(answers).filter((s) => s === 200)).toHaveLength(perMinute);
      expect(codes(answers).filter((c) => c === 'rate_limited')).toHaveLength(5);
    },
  );

  it('admits again when the UTC minute rolls over', async () => {
    const token = await issueToken('free');
    await getMany(token, 61);
    advance(60);
    const next = await get(token);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it('refuses an Enterprise key on its own day limit until midnight UTC', async () => {
    const { token } = await seedKey({
      plan: 'enterprise',
      limits: { perMinute: 3, perDay: 4 },
    });
    const firstMinute = await getInTurn(token, 4);
    expect(statuses(firstMinute)).toEqual([200, 200, 200, 429]);
    expect(firstMinute[3]?.headers.get('x-ratelimit-reset')).toBe(String(Date.now() / 1000 + 60));

    advance(60);
    const [last, refused] = await getInTurn(token, 2);
    expect(last?.status).toBe(200);
    expect(last?.headers.get('x-ratelimit-limit')).toBe('4');
    expect(last?.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused?.status).toBe(429);
    expect(refused?.headers.get('x-ratelimit-reset')).toBe(String(MIDNIGHT));
    expect(refused?.headers.get('retry-after')).toBe(String(MIDNIGHT - Date.now() / 1000));
  });
});

describe('rate-limit fields', () => {
  const FIELDS = [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit-policy',
    'ratelimit',
  ];

  function expectFields(response: Response) {
    for (const field of FIELDS)
      expect(response.headers.get(field), `${field} on ${response.status}`).not.toBeNull();
  }

  it('are on every authenticated answer, 2xx and 4xx', async () => {
    const token = await issueToken('pro');
    const client = petstoreClient(`${gateway.url}`, token);
    const answers = [
      await client.GET('/pets'),
      await client.POST('/pets', { body: { name: 'Rex', categoryId: 1 } }),
      await client.GET('/pets', { params: { query: { limit: 0 } } }),
      await client.GET('/pets/{petId}', { params: { path: { petId: 999_999 } } }),
      await client.POST('/pets', { body: { name: '' } as never }),
    ];
    expect(answers.map((a) => a.response.status)).toEqual([200, 201, 400, 404, 400]);
    for (const { response } of answers) expectFields(response);
    const remaining = answers.map((a) => Number(a.response.headers.get('x-ratelimit-remaining')));
    expect(remaining).toEqual([299, 298, 297, 296, 295]);
  });

  it('are not on a 401, which no key was counted for', async () => {
    const response = await fetch(`${gateway.url}/pets`);
    expect(response.status).toBe(401);
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('temporary ban', () => {
  it('bans a key after more than 50 refused requests in one minute, for 15 minutes', async () => {
    const token = await issueToken('free');
    const answers = await getInTurn(token, 60 + 52);
    expect(codes(answers.slice(60, 110))).toEqual(Array(50).fill('rate_limited'));
    expect(codes(answers.slice(110))).toEqual(Array(2).fill('api_key_temporarily_banned'));
    const banned = answers[111];
    expect(banned?.status).toBe(429);
    expect(banned?.headers.get('retry-after')).toBe('900');

    advance(14 * 60);
    const stillBanned = await get(token);
    expect(stillBanned.body.code).toBe('api_key_temporarily_banned');
    expect(stillBanned.headers.get('retry-after')).toBe('60');

    advance(60);
    expect((await get(token)).status).toBe(200);
  });

  it('is lifted at once by unban', async () => {
    const token = await issueToken('free');
    await getInTurn(token, 60 + 51);
    expect((await get(token)).body.code).toBe('api_key_temporarily_banned');
    const keyId = (await createContainer().keys.findByToken(token))?.keyId ?? '';

    await keys.unbanKey(keyId, TEST_CONTEXT);
    advance(60);
    expect((await get(token)).status).toBe(200);
  });
});

describe('plan changes', () => {
  it('apply once the authorizer cache has expired (60 s), keeping the old limits until then', async () => {
    const { record, token } = await seedKey({
      plan: 'enterprise',
      limits: { perMinute: 10, perDay: 100 },
    });
    expect(statuses(await getInTurn(token, 11)).slice(9)).toEqual([200, 429]);

    await keys.setPlan(record.keyId, 'enterprise', { perMinute: 12, perDay: 100 }, TEST_CONTEXT);
    advance(30);
    const cached = await get(token);
    expect(cached.status).toBe(429);
    expect(cached.body.code).toBe('rate_limited');
    expect(cached.headers.get('x-ratelimit-limit')).toBe('10');

    advance(30);
    const moved = await getInTurn(token, 13);
    expect(statuses(moved).filter((status) => status === 200)).toHaveLength(12);
    expect(moved[12]?.body.code).toBe('rate_limited');
    expect(moved[0]?.headers.get('ratelimit-policy')).toBe(
      '"minute";q=12;w=60, "day";q=100;w=86400',
    );
  });
});
