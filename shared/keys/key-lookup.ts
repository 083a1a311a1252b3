/** The authorizer's port: the key a bearer token belongs to. */
import type { ApiKeyRecord } from './key-records.ts';

/**
 * A key as one of its tokens presents it to the authorizer: who it is, its plan and limits, what
 * it may call, its usage identifier, and until when the key and this token work (`keyRefusal`).
 */
export type TokenKey = Pick<
  ApiKeyRecord,
  | 'keyId'
  | 'plan'
  | 'perMinute'
  | 'perDay'
  | 'scopes'
  | 'usageIdentifier'
  | 'revokedAt'
  | 'expiresAt'
  | 'graceUntil'
>;

/** Finds the key of a bearer token, as the authorizer does on every uncached request. */
export interface KeyLookup {
  /**
   * The key `token` belongs to, read strongly consistently: revoked, expired or the old token of a
   * rolled key included, for the caller to refuse; `undefined` for a token no key has (any more).
   * @throws StoreUnavailableError when the store failed or did not answer in time.
   */
  findByToken(token: string, options?: { signal?: AbortSignal }): Promise<TokenKey | undefined>;
}
