/** The KeyStore port: API keys for the authorizer and the keys command. */
import type { PlanId, RequestLimits } from '../plans.ts';
import type { ApiKeyRecord, ListedKey, NewKeyInput } from './key-records.ts';
import type { Scope } from './scopes.ts';
import type { TokenStage } from './token.ts';

/** A record before and after a change. */
export interface KeyChange {
  readonly previous: ApiKeyRecord;
  readonly record: ApiKeyRecord;
}

/** API keys: issuing, finding by bearer token, listing, changing, revoking and rolling. */
export interface KeyStore {
  /**
   * Issues a key; only its token's hash is kept.
   * @throws RangeError for limits unfit for the plan, or an empty `scopes`.
   */
  createKey(input: NewKeyInput): Promise<{ record: ApiKeyRecord; token: string }>;
  /**
   * The row of a bearer token (revoked, expired, rolled-out included), read strongly consistently.
   * @throws StoreUnavailableError when the store failed or did not answer in time.
   */
  findByToken(token: string, options?: { signal?: AbortSignal }): Promise<ApiKeyRecord | undefined>;
  /** The current row of the key with this public id, or `undefined`. */
  findById(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Every key, oldest first, as its current row with the end of its rolled-out token's grace. */
  listKeys(): Promise<ListedKey[]>;
  /**
   * Moves a key to `plan` on all of its rows at once.
   * @param limits An Enterprise key's own limits (required for Enterprise, refused otherwise).
   * @returns `undefined` when no key has this id.
   * @throws RangeError when `limits` do not fit the plan; KeyChangedError when concurrent changes
   *   keep cancelling it.
   */
  setPlan(keyId: string, plan: PlanId, limits?: RequestLimits): Promise<KeyChange | undefined>;
  /**
   * Revokes every token of a key; revoking twice keeps the first revocation time.
   * @returns The revoked record, or `undefined` when no key has this id.
   * @throws KeyChangedError when concurrent changes keep cancelling it.
   */
  revokeKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * Sets what a key may call, on every token of it (`keyScopes`: `pets:write` comes with
   * `pets:read`).
   * @returns `undefined` when no key has this id.
   * @throws RangeError for no scope; KeyChangedError when concurrent changes keep cancelling it.
   */
  setScopes(keyId: string, scopes: readonly Scope[]): Promise<KeyChange | undefined>;
  /**
   * Sets when a key expires, on every token of it, or removes its expiry (`undefined`).
   * @returns `undefined` when no key has this id.
   * @throws KeyChangedError when concurrent changes keep cancelling it.
   */
  setExpiry(keyId: string, expiresAt: string | undefined): Promise<KeyChange | undefined>;
  /**
   * Issues a new token for the same key (same id, plan, limits, scopes, owner, expiry and usage
   * identifier); the current token keeps working for `graceSeconds` (0: not at all), and a
   * rolled-out token still in its grace is deleted: at most two tokens live.
   *
   * @param options.tokenStage The stage whose prefix the new token carries. @default 'local'
   * @returns The new row, the token (shown once) and the end of the old token's grace; or
   *   `undefined` when no key has this id.
   * @throws KeyRevokedError for a revoked key; KeyChangedError when a concurrent change cancels
   *   the roll (nothing is changed then).
   */
  rollKey(
    keyId: string,
    options: { graceSeconds: number; tokenStage?: TokenStage },
  ): Promise<{ record: ApiKeyRecord; token: string; graceUntil?: string } | undefined>;
}
