/**
 * `GET /keys/{keyId}/usage` (getPortalKeyUsage): 200 `{ days, minute, day }`, 30 UTC days newest
 * first and what is left this minute and today, from the limiter's counters.
 */
import { type PortalDoor, portalHandler } from '../../../shared/http/portal-handler.ts';
import { jsonResponse } from '../../../shared/http/responses.ts';
import { accountOwner } from '../../../shared/keys/accounts.ts';
import type { KeyService } from '../../../shared/keys/key-service.ts';
import type { WindowUsage } from '../../../shared/rate-limit/decision.ts';
import { keyIdOf } from '../../admin/handlers/key-id.ts';

/** The days the portal shows. */
export const USAGE_DAYS = 30;

/** A window as the answer gives it: its limit, what is left, and when it resets (ISO 8601). */
function windowNow({ limit, remaining, resetAt }: WindowUsage) {
  return { limit, remaining, resetAt: new Date(resetAt * 1000).toISOString() };
}

/** The Lambda handler of getPortalKeyUsage. */
export function getPortalKeyUsageHandler(keys: KeyService, door: PortalDoor) {
  return portalHandler(async function getPortalKeyUsage(event, account) {
    const usage = await keys.usageNow(keyIdOf(event), USAGE_DAYS, accountOwner(account.sub));
    return jsonResponse(200, {
      days: usage.days,
      minute: windowNow(usage.minute),
      day: windowNow(usage.day),
    });
  }, door);
}
