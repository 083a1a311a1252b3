/**
 * Fixtures of the rate limiter's storage tests (test/dynamodb/rate-limiter.test.ts and
 * rate-limit-bans.test.ts): this run's counters table on DynamoDB Local, fresh key ids, instants
 * whose counter items expire in the future, and helpers to send requests.
 */
import { afterAll } from 'vitest';
import { DynamoDBAuditLog } from '../../shared/dynamodb/audit-log.ts';
import { DynamoDBRateLimitBans } from '../../shared/dynamodb/bans.ts';
import { createDocumentClient } from '../../shared/dynamodb/clients.ts';
import { DynamoDBRateLimiter } from '../../shared/dynamodb/dynamodb-rate-limiter.ts';
import { COUNTERS_TABLE } from '../../shared/dynamodb/tables.ts';
import { PLANS } from '../../shared/plans.ts';
import type { RateLimitDecision } from '../../shared/rate-limit/decision.ts';
import { type BanPolicy, DEFAULT_BAN_POLICY } from '../../shared/rate-limit/rate-limiter.ts';
import { readSettings, requiredSetting } from '../../shared/settings.ts';
import { DAY_AFTER_TOMORROW, tomorrowAt, utcInstant } from './clock.ts';

export const client = createDocumentClient();
export const tableName = requiredSetting(readSettings(), COUNTERS_TABLE.envVar);
afterAll(() => client.destroy());
/** The test file's audit table, where a lifted ban's entry goes. */
export const audit = DynamoDBAuditLog.from({ client, settings: readSettings() });
export const bans = new DynamoDBRateLimitBans(client, tableName, audit);

export const FREE = PLANS.free;
/** 10:30:00 UTC tomorrow, the first second of a minute: its counter items expire in the future. */
export const T0 = tomorrowAt('10:30:00');
/** 00:00 UTC after tomorrow, where the day windows of these tests reset. */
export const MIDNIGHT = utcInstant(DAY_AFTER_TOMORROW, '00:00:00');
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;

let keySequence = 0;
/** A key id no other test uses, so that each test starts with empty windows. */
export function freshKey(): string {
  keySequence += 1;
  return `key_test${keySequence}_${Math.random().toString(16).slice(2, 10)}`;
}

export function limiter(banPolicy: BanPolicy = DEFAULT_BAN_POLICY) {
  return new DynamoDBRateLimiter(client, tableName, banPolicy);
}

/** Sends `count` requests one after another at `nowMs`; returns the decisions. */
export async function sendSequentially(
  rl: DynamoDBRateLimiter,
  keyId: string,
  limits: { perMinute: number; perDay: number },
  count: number,
  nowMs: number,
): Promise<RateLimitDecision[]> {
  const decisions: RateLimitDecision[] = [];
  for (let i = 0; i < count; i += 1) decisions.push(await rl.consume(keyId, limits, nowMs));
  return decisions;
}

export const admittedCount = (decisions: RateLimitDecision[]) =>
  decisions.filter((d) => d.admitted).length;
