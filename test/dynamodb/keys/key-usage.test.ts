import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoDBRateLimiter } from '../../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { DAY_MS } from '../../support/clock.ts';
import {
  countersTableName,
  documentClient,
  keysCommand,
  seedKey,
  service,
  TEST_CONTEXT,
  tableName,
  useDeployedStage,
} from '../../support/keys-command.ts';

const limiter = new DynamoDBRateLimiter(documentClient, countersTableName);

/** Sends `count` requests of a key at `nowMs` through the rate limiter, as the functions do. */
async function send(keyId: string, count: number, nowMs: number, perMinute = 1_000) {
  for (let i = 0; i < count; i++)
    await limiter.consume(keyId, { perMinute, perDay: 10_000 }, nowMs);
}

/** `YYYY-MM-DD` of the UTC day `back` days before today. */
const day = (back: number) => new Date(Date.now() - back * DAY_MS).toISOString().slice(0, 10);

describe('keys command usage on the local stack', () => {
  it('prints requests admitted and refused per UTC day, newest first, and the last day used', async () => {
    const { record } = await seedKey({ plan: 'free' });
    await send(record.keyId, 3, Date.now() - 2 * DAY_MS, 2);

    const { code, stdout } = await keysCommand(['usage', record.keyId, '--days', '3']);

    expect(code).toBe(0);
    expect(stdout[0]).toMatch(`Requests of key ${record.keyId} on the local stack`);
    expect(stdout.slice(1, 5).map((line) => line.split(/\s{2,}/))).toEqual([
      ['DAY', 'ADMITTED', 'REFUSED (429)'],
      [day(0), '0', '0'],
      [day(1), '0', '0'],
      [day(2), '2', '1'],
    ]);
    expect(stdout).toContain(`Last used: ${day(2)}`);
  });

  it('keeps counting on the same key across a roll', async () => {
    const { record } = await seedKey({ plan: 'free' });
    await send(record.keyId, 2, Date.now());
    await service.rollKey(record.keyId, 60, TEST_CONTEXT);
    await send(record.keyId, 3, Date.now());

    const { stdout } = await keysCommand(['usage', record.keyId, '--days', '1']);

    expect(stdout[2]?.split(/\s{2,}/)).toEqual([day(0), '5', '0']);
  });

  it("adds up an Enterprise key's shards when its counts spread", async () => {
    const limits = { perMinute: 30_000, perDay: 100_000 };
    const { record } = await seedKey({ plan: 'enterprise', limits });
    for (let i = 0; i < 4; i++) await limiter.consume(record.keyId, limits, Date.now());

    const { stdout } = await keysCommand(['usage', record.keyId, '--days', '1']);

    expect(stdout[2]?.split(/\s{2,}/)).toEqual([day(0), '4', '0']);
  });

  it('says a key without requests was not used in the days kept', async () => {
    const { record } = await seedKey({ plan: 'free' });

    const { stdout } = await keysCommand(['usage', record.keyId]);

    expect(stdout.filter((line) => /^\d{4}-/.test(line))).toHaveLength(7);
    expect(stdout).toContain('Last used: not in 35 days');
  });

  it.each([['0'], ['36'], ['x']])('refuses --days %s as a usage error', async (days) => {
    const { code, stderr } = await keysCommand(['usage', 'key_0000000000000000', '--days', days]);

    expect(code).toBe(2);
    expect(stderr[0]).toBe(
      'keys: --days must be a whole number from 1 to 35 (the days the counters are kept).',
    );
  });

  it('fails with exit status 1 for an unknown key', async () => {
    const { code, stderr } = await keysCommand(['usage', 'key_0000000000000000']);

    expect(code).toBe(1);
    expect(stderr[0]).toMatch(/^keys: No key key_0000000000000000 on the local stack/);
  });
});

describe('keys command list with usage', () => {
  it('shows the last day used, and with --dormant only keys created before and unused since', async () => {
    const { record: idle } = await seedKey({ plan: 'free', owner: 'idle' });
    const { record: busy } = await seedKey({ plan: 'free', owner: 'busy' });
    const { record: young } = await seedKey({ plan: 'free', owner: 'young' });
    // A key younger than the period is not dormant: these two were "created" 40 days ago.
    for (const { keyHash } of [idle, busy]) {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { keyHash },
          UpdateExpression: 'SET createdAt = :at',
          ExpressionAttributeValues: { ':at': new Date(Date.now() - 40 * DAY_MS).toISOString() },
        }),
      );
    }
    await send(busy.keyId, 1, Date.now() - 3 * DAY_MS);

    const listed = await keysCommand(['list']);
    const dormant = await keysCommand(['list', '--dormant', '5d']);

    const row = (lines: string[], keyId: string) =>
      lines.find((line) => line.startsWith(keyId))?.split(/\s{2,}/);
    expect(listed.stdout[0]?.split(/\s{2,}/)[8]).toBe('LAST USED');
    expect(row(listed.stdout, busy.keyId)?.[8]).toBe(day(3));
    expect(row(listed.stdout, idle.keyId)?.[8]).toBe('not in 35 days');
    expect(row(listed.stdout, young.keyId)?.[8]).toBe('not in 35 days');
    expect(dormant.code).toBe(0);
    expect(row(dormant.stdout, idle.keyId)).toBeDefined();
    expect(row(dormant.stdout, busy.keyId)).toBeUndefined();
    expect(row(dormant.stdout, young.keyId)).toBeUndefined();
  });

  it('refuses --dormant beyond the 35 days the counters are kept', async () => {
    const { code, stderr } = await keysCommand(['list', '--dormant', '36d']);

    expect(code).toBe(2);
    expect(stderr[0]).toMatch(/--dormant.*At most 35d/);
  });
});

describe('keys command usage on a deployed stage', () => {
  useDeployedStage();

  it("reads the stage's counters table", async () => {
    const { record } = await seedKey({ plan: 'free' });
    await send(record.keyId, 4, Date.now());

    const { code, stdout } = await keysCommand([
      'usage',
      record.keyId,
      '--days',
      '1',
      '--stage',
      'staging',
    ]);

    expect(code).toBe(0);
    expect(stdout[2]?.split(/\s{2,}/)).toEqual([day(0), '4', '0']);
  });
});
