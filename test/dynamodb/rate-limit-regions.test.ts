/**
 * The rate limiter in a stage of two regions, on DynamoDB Local: each region counts on its own
 * items (the home region's under the names of a stage of one region, the other's `…@<region>`)
 * and decides with the other's counts read beside its write. One table stands for both replicas
 * once replication settles (no lag); two tables for replication that never arrives (the worst case).
 * Figures under the local stack's lag: test/integration/regions-limits.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createTables } from '../../infra/local/create-tables.ts';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { DynamoDBKeyUsage } from '../../shared/dynamodb/key-usage.ts';
import { COUNTERS_TABLE } from '../../shared/dynamodb/tables.ts';
import { counterName } from '../../shared/rate-limit/counter-item.ts';
import { instantAt } from '../../shared/rate-limit/decision.ts';
import { DEFAULT_BAN_POLICY } from '../../shared/rate-limit/rate-limiter.ts';
import { DEFAULT_SPREAD_POLICY } from '../../shared/rate-limit/shards.ts';
import type { Regions } from '../../shared/regions.ts';
import {
  admittedCount,
  audit,
  client,
  freshKey,
  SECOND,
  T0,
  tableName,
} from '../support/rate-limiter-fixtures.ts';
import { TEST_CONTEXT } from '../support/test-keys.ts';

const NAMES = ['us-east-1', 'eu-west-1'];
const regionLimiter = (own: number, table = tableName, banPolicy = DEFAULT_BAN_POLICY) =>
  new DynamoDBRateLimiter(client, table, banPolicy, DEFAULT_SPREAD_POLICY, {
    names: NAMES,
    own,
  } satisfies Regions);

/** Sends `count` requests one after another, alternating between `limiters`, at `nowMs`. */
async function alternate(
  limiters: DynamoDBRateLimiter[],
  keyId: string,
  limits: Limits,
  count: number,
  nowMs: number,
) {
  const decisions = [];
  for (let i = 0; i < count; i++) {
    decisions.push(
      await (limiters[i % limiters.length] as DynamoDBRateLimiter).consume(keyId, limits, nowMs),
    );
  }
  return decisions;
}
type Limits = { perMinute: number; perDay: number };

async function dayCountOf(name: string): Promise<number | undefined> {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: { name }, ConsistentRead: true }),
  );
  return Item?.dayCount as number | undefined;
}

describe('the rate limiter in two regions', () => {
  it('admits a key exactly its minute limit over both regions once their counts are replicated', async () => {
    const keyId = freshKey();
    const limits = { perMinute: 10, perDay: 1_000 };

    const decisions = await alternate([regionLimiter(0), regionLimiter(1)], keyId, limits, 30, T0);

    expect(admittedCount(decisions)).toBe(10);
    const day = counterName(keyId, instantAt(T0).day);
    // The 11th request, counted in the home region on the 4 it knew of the other's and refused on
    // the 5 its read found, was taken back.
    expect(await dayCountOf(day)).toBe(5);
    expect(await dayCountOf(`${day}@eu-west-1`)).toBe(5);
    expect(decisions.at(-1)?.binding).toMatchObject({ name: 'minute', remaining: 0 });
  });

  it('admits a key exactly its day limit over both regions, across minutes', async () => {
    const keyId = freshKey();
    const limits = { perMinute: 100, perDay: 10 };
    const limiters = [regionLimiter(0), regionLimiter(1)];

    const first = await alternate(limiters, keyId, limits, 6, T0);
    const later = await alternate(limiters, keyId, limits, 12, T0 + 90 * SECOND);

    expect(admittedCount([...first, ...later])).toBe(10);
    expect(later.at(-1)?.binding).toMatchObject({ name: 'day', remaining: 0 });
  });

  it('admits one region traffic staying in it exactly its limit, as a stage of one region', async () => {
    const keyId = freshKey();
    const limits = { perMinute: 10, perDay: 1_000 };

    const decisions = await alternate([regionLimiter(1)], keyId, limits, 15, T0);

    expect(decisions.map((d) => d.admitted)).toEqual([
      ...Array(10).fill(true),
      ...Array(5).fill(false),
    ]);
    expect(decisions[9]?.minute.remaining).toBe(0);
  });

  it('never admits a burst more than regions × its limit, even when nothing replicates', async () => {
    const suffix = randomBytes(4).toString('hex');
    const own = await createTables(client, (table) => `${table.localName}-unreplicated-${suffix}`);
    const keyId = freshKey();
    const limits = { perMinute: 10, perDay: 1_000 };
    const home = regionLimiter(0);
    const other = regionLimiter(1, own[COUNTERS_TABLE.envVar] as string);

    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? other : home).consume(keyId, limits, T0)),
    );

    expect(admittedCount(decisions)).toBe(20);
  });

  it('refuses in every region a key that one region banned', async () => {
    const keyId = freshKey();
    const limits = { perMinute: 2, perDay: 1_000 };
    const policy = { threshold: 3, durationSeconds: 900 };
    const home = regionLimiter(0, tableName, policy);
    const other = regionLimiter(1, tableName, policy);

    const inHome = await alternate([home], keyId, limits, 6, T0);
    const elsewhere = await alternate([other], keyId, limits, 3, T0 + 61 * SECOND);

    expect(inHome.at(-1)?.bannedUntil).toBe(T0 / 1000 + 900);
    for (const decision of elsewhere) {
      expect(decision).toMatchObject({ admitted: false, bannedUntil: T0 / 1000 + 900 });
    }
    // The first, counted before its instance knew of the ban, was taken back.
    const day = counterName(keyId, instantAt(T0).day);
    expect(await dayCountOf(`${day}@eu-west-1`)).toBe(0);
  });

  it("shows the keys command the usage summed and the ban of any region; unban lifts its own region's", async () => {
    const keyId = freshKey();
    const limits = { perMinute: 2, perDay: 1_000 };
    const policy = { threshold: 1, durationSeconds: 900 };
    const home = { names: NAMES, own: 0 };
    await alternate([regionLimiter(0, tableName, policy), regionLimiter(1)], keyId, limits, 6, T0);
    const at = T0 + SECOND;

    const usage = await new DynamoDBKeyUsage(client, tableName, 25, home).dailyUsage(
      [keyId],
      1,
      at,
    );
    const bans = new DynamoDBRateLimitBans(client, tableName, audit, 25, { names: NAMES, own: 1 });
    const seen = await bans.banState(keyId, at);
    const lifted = await bans.unban(keyId, at, TEST_CONTEXT);

    expect(usage.get(keyId)?.[0]).toMatchObject({ admitted: 2, refused: 3 });
    expect(seen).toEqual({ bannedUntil: T0 / 1000 + 900 });
    expect(lifted).toEqual(seen);
    // The home region's ban is the home region's to lift.
    expect(await bans.banState(keyId, at)).toEqual(seen);
    const homeBans = new DynamoDBRateLimitBans(client, tableName, audit, 25, home);
    expect(await homeBans.unban(keyId, at, TEST_CONTEXT)).toEqual(seen);
    expect(await bans.banState(keyId, at)).toBeUndefined();
  });
});
