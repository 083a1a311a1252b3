/** A key as the portal API shows it to its account (docs/portal-openapi.yaml, `PortalKey`). */
import { keyRefusal, limitsOfKey } from '../keys/key-records.ts';
import type { KeyStatus, ShownKey } from '../keys/shown-key.ts';

/** An account's key: no token, hash, usage identifier or owner; its limits and its status. */
export interface PortalKey {
  readonly keyId: string;
  readonly name: string;
  readonly plan: ShownKey['plan'];
  readonly perMinute: number;
  readonly perDay: number;
  readonly scopes: ShownKey['scopes'];
  readonly createdAt: string;
  readonly lastUsed?: string;
  readonly expiresAt?: string;
  readonly revokedAt?: string;
  readonly oldTokenUntil?: string;
  readonly status: 'active' | 'revoked' | 'expired';
}

/** `key` (with its last day used, when known) as its account sees it at `nowMs` (epoch ms). */
export function portalKey(
  { key, lastUsed }: Pick<KeyStatus, 'key' | 'lastUsed'>,
  nowMs: number,
): PortalKey {
  const refusal = keyRefusal(key, nowMs);
  const graceLasts = key.oldTokenUntil !== undefined && Date.parse(key.oldTokenUntil) > nowMs;
  return {
    keyId: key.keyId,
    name: key.name ?? key.keyId,
    plan: key.plan,
    ...limitsOfKey(key),
    scopes: key.scopes,
    createdAt: key.createdAt,
    ...(lastUsed && { lastUsed }),
    ...(key.expiresAt && { expiresAt: key.expiresAt }),
    ...(key.revokedAt && { revokedAt: key.revokedAt }),
    ...(graceLasts && { oldTokenUntil: key.oldTokenUntil }),
    status: refusal === 'revoked' || refusal === 'expired' ? refusal : 'active',
  };
}
