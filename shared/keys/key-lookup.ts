/** The authorizer's port: the key a bearer token belongs to. */
import type { ApiKeyRecord } from './key-records.ts';

/** A key as one of its tokens presents it to the authorizer. */
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
   * The key `token` belongs to (strongly consistent), refused ones included; `undefined`: none.
   * @throws StoreUnavailableError
   */
  findByToken(token: string, options?: { signal?: AbortSignal }): Promise<TokenKey | undefined>;
}
