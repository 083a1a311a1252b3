/** Keys as the doors of the key service show them: never a token, its hash or the usage identifier. */
import { ENTERPRISE_PLAN } from '../plans.ts';
import { RETENTION_DAYS } from '../rate-limit/counter-item.ts';
import { lastUsedDay } from '../rate-limit/key-status.ts';
import type { ApiGatewaySteps, BanAdministration, UsageReader } from './admin-ports.ts';
import type { ApiKeyRecord, KeyChange, ListedKey } from './key-records.ts';

export type ShownKey = Omit<ListedKey, 'keyHash' | 'usageIdentifier' | 'graceUntil'>;

/** A key with its ban and its last day used, as `listKeys` and `getKey` answer it. */
export interface KeyStatus {
  readonly key: ShownKey;
  /** The ban in force: ISO 8601 time it ends; `undefined`: not banned. */
  readonly bannedUntil?: string;
  /** Last UTC day (`YYYY-MM-DD`) with a request in the `RETENTION_DAYS` kept; `undefined`: none. */
  readonly lastUsed?: string;
}

/** A key before and after a change, as shown, with what API Gateway did in each region. */
export interface ShownChange {
  readonly previous: ShownKey;
  readonly key: ShownKey;
  readonly apiGateway: ApiGatewaySteps;
}

/** API Gateway's part of a change it does not hold (expiry, scopes): no region, no step. */
const NO_API_GATEWAY_STEPS: ApiGatewaySteps = { regions: [], steps: [] };

/** `record` as the admin API shows it. */
export function shownKey(record: ApiKeyRecord | ListedKey): ShownKey {
  const { keyHash: _hash, usageIdentifier: _usage, graceUntil: _grace, ...shown } = record;
  return shown;
}

/** `changed` as the admin API shows it, with API Gateway's steps (none: expiry, scopes). */
export function shownChange(changed: KeyChange, apiGateway = NO_API_GATEWAY_STEPS): ShownChange {
  return { previous: shownKey(changed.previous), key: shownKey(changed.record), apiGateway };
}

/**
 * Keys with their ban (one GetItem each) and last day used (BatchGetItem of the days kept), on
 * the counters table's ports at `now` (epoch ms).
 */
export async function keyStatuses(
  ports: { readonly bans: BanAdministration; readonly usage: UsageReader },
  now: number,
  keys: readonly (ApiKeyRecord | ListedKey)[],
): Promise<KeyStatus[]> {
  const enterprise = keys.filter((record) => record.plan === ENTERPRISE_PLAN.id);
  const [bans, usage] = await Promise.all([
    Promise.all(keys.map((record) => ports.bans.banState(record.keyId, now))),
    ports.usage.dailyUsage(
      keys.map((record) => record.keyId),
      RETENTION_DAYS,
      now,
      new Set(enterprise.map((record) => record.keyId)),
    ),
  ]);
  return keys.map((record, index) => {
    const ban = bans[index];
    const lastUsed = lastUsedDay(usage.get(record.keyId) ?? []);
    return {
      key: shownKey(record),
      ...(ban && { bannedUntil: new Date(ban.bannedUntil * 1000).toISOString() }),
      ...(lastUsed && { lastUsed }),
    };
  });
}
