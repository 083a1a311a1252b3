/** The keys command's port: issuing, finding, listing, changing, revoking and rolling API keys. */
import type { PlanId, RequestLimits } from '../plans.ts';
import type { ApiKeyRecord, ListedKey, NewKeyInput } from './key-records.ts';
import type { Scope } from './scopes.ts';
import type { TokenStage } from './token.ts';

/** A key before and after a change. */
export interface KeyChange {
  readonly previous: ApiKeyRecord;
  readonly record: ApiKeyRecord;
}

/** A key with a token just issued for it; the token is shown once and stored nowhere. */
export interface IssuedKey {
  readonly record: ApiKeyRecord;
  readonly token: string;
}

/** A key rolled to a new token, and until when its old token works (none: not at all). */
export interface RolledKey extends IssuedKey {
  /** ISO 8601 time from which the old token is refused. */
  readonly graceUntil?: string;
}

/**
 * API keys as an operator administers them. Every change applies to every token of the key at
 * once (its current token and, during a roll's grace, its old one), so that no token of a key
 * lags behind it. Each returns `undefined` when no key has the id.
 */
export interface KeyAdministration {
  /**
   * Issues a key; only its token's hash is kept.
   * @throws RangeError for limits unfit for the plan, or an empty `scopes`.
   */
  createKey(input: NewKeyInput): Promise<IssuedKey>;
  /** The key with this public id, as its current token holds it, read strongly consistently. */
  findById(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Every key, oldest first, with until when the old token of a rolled key works. */
  listKeys(): Promise<ListedKey[]>;
  /**
   * Moves a key to `plan`.
   * @param limits An Enterprise key's own limits (required for Enterprise, refused otherwise).
   * @throws RangeError when `limits` do not fit the plan; KeyChangedError when concurrent changes
   *   keep cancelling it.
   */
  setPlan(keyId: string, plan: PlanId, limits?: RequestLimits): Promise<KeyChange | undefined>;
  /**
   * Revokes a key; revoking twice keeps the first revocation time (`withRevocation`).
   * @returns The revoked key.
   * @throws KeyChangedError when concurrent changes keep cancelling it.
   */
  revokeKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Sets what a key may call (`keyScopes`: `pets:write` comes with `pets:read`).
   * @throws RangeError for no scope; KeyChangedError when concurrent changes keep cancelling it.
   */
  setScopes(keyId: string, scopes: readonly Scope[]): Promise<KeyChange | undefined>;
  /**
   * Sets when a key expires, or removes its expiry (`undefined`).
   * @throws KeyChangedError when concurrent changes keep cancelling it.
   */
  setExpiry(keyId: string, expiresAt: string | undefined): Promise<KeyChange | undefined>;
  /**
   * Issues a new token for the same key (same id, plan, limits, scopes, owner, expiry and usage
   * identifier); the current token keeps working for `graceSeconds` (0: not at all), and an old
   * token of an earlier roll ends now: a key has at most two tokens.
   *
   * @param options.tokenStage The stage whose prefix the new token carries. @default 'local'
   * @throws KeyRevokedError for a revoked key; KeyChangedError when a concurrent change cancels
   *   the roll (nothing is changed then).
   */
  rollKey(
    keyId: string,
    options: { graceSeconds: number; tokenStage?: TokenStage },
  ): Promise<RolledKey | undefined>;
}
