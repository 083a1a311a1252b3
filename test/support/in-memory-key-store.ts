/** The authorizer's key lookup in memory, with the semantics of the DynamoDB one; for tests. */

import type { KeyLookup } from '../../shared/keys/key-lookup.ts';
import {
  type ApiKeyRecord,
  type IssuedKey,
  type NewKeyInput,
  newKey,
} from '../../shared/keys/key-records.ts';
import { hashToken } from '../../shared/keys/token.ts';

/** Rows by token hash, as the keys table keeps them; keys are seeded as fixtures (`seedKey`). */
export class InMemoryKeyStore implements KeyLookup {
  private readonly rows = new Map<string, ApiKeyRecord>();

  /**
   * A new key (`newKey`) put straight into the store, its row with `fields` (e.g. `revokedAt`):
   * a fixture, as `seedKey` (test-keys.ts) is on DynamoDB.
   */
  async seedKey(input: NewKeyInput, fields: Partial<ApiKeyRecord> = {}): Promise<IssuedKey> {
    const { record: issued, token } = newKey(input);
    const record = { ...issued, ...fields };
    this.rows.set(record.keyHash, record);
    return { record: { ...record }, token };
  }

  async findByToken(token: string): Promise<ApiKeyRecord | undefined> {
    const row = this.rows.get(hashToken(token));
    return row && { ...row };
  }
}
