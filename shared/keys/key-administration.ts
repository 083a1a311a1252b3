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
 * API keys as an operator administers them: a change applies to every token of the key at once;
 * `undefined` answers an id that no key has.
 */
export interface KeyAdministration {
  /** Issues a key; only its token's hash is kept. @throws InvalidLimitsError; InvalidScopesError (see `newKey`). */
  createKey(input: NewKeyInput): Promise<IssuedKey>;
  /** The key with this public id, as its current token holds it, read strongly consistently. */
  findById(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Every key, oldest first, with until when the old token of a rolled key works. */
  listKeys(): Promise<ListedKey[]>;
  /**
   * Moves a key to `plan`, with an Enterprise key's own `limits`.
   * @throws InvalidLimitsError when `limits` do not fit the plan; KeyChangedError (see `rollKey`).
   */
  setPlan(keyId: string, plan: PlanId, limits?: RequestLimits): Promise<KeyChange | undefined>;
  /** Revokes a key, keeping the first revocation time. @throws KeyChangedError */
  revokeKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Sets what a key may call (`keyScopes`). @throws InvalidScopesError; KeyChangedError */
  setScopes(keyId: string, scopes: readonly Scope[]): Promise<KeyChange | undefined>;
  /** Sets when a key expires, or removes its expiry (`undefined`). @throws KeyChangedError */
  setExpiry(keyId: string, expiresAt: string | undefined): Promise<KeyChange | undefined>;
  /**
   * Issues a new token for the same key; the current one works for `graceSeconds` more, and an
   * older one ends now (a key has at most two tokens).
   * @param options.tokenStage The stage whose prefix the new token carries. @default 'local'
   * @throws KeyRevokedError for a revoked key; KeyChangedError when concurrent changes keep
   *   cancelling the change (nothing is changed then).
   */
  rollKey(
    keyId: string,
    options: { graceSeconds: number; tokenStage?: TokenStage },
  ): Promise<RolledKey | undefined>;
}
