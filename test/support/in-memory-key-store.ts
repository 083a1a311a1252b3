/** The key stores in memory, with the semantics of the DynamoDB one; for tests. */

import type {
  IssuedKey,
  KeyAdministration,
  KeyChange,
  RolledKey,
} from '../../shared/keys/key-administration.ts';
import type { KeyLookup } from '../../shared/keys/key-lookup.ts';
import {
  type ApiKeyRecord,
  customLimits,
  isCurrentToken,
  type ListedKey,
  listedKeys,
  type NewKeyInput,
  newKey,
  rolledKey,
  withExpiry,
  withPlan,
  withRevocation,
  withScopes,
} from '../../shared/keys/key-records.ts';
import type { Scope } from '../../shared/keys/scopes.ts';
import { hashToken, type TokenStage } from '../../shared/keys/token.ts';
import type { PlanId, RequestLimits } from '../../shared/plans.ts';

/** Rows by token hash, as the keys table keeps them (a key has at most two). */
export class InMemoryKeyStore implements KeyLookup, KeyAdministration {
  private readonly rows = new Map<string, ApiKeyRecord>();

  async createKey(input: NewKeyInput): Promise<IssuedKey> {
    const { record, token } = newKey(input);
    this.rows.set(record.keyHash, record);
    return { record: { ...record }, token };
  }

  async findByToken(token: string): Promise<ApiKeyRecord | undefined> {
    const row = this.rows.get(hashToken(token));
    return row && { ...row };
  }

  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const current = this.rowsOf(keyId).find(isCurrentToken);
    return current && { ...current };
  }

  async listKeys(): Promise<ListedKey[]> {
    return listedKeys([...this.rows.values()].map((row) => ({ ...row })));
  }

  async setPlan(
    keyId: string,
    plan: PlanId,
    limits?: RequestLimits,
  ): Promise<KeyChange | undefined> {
    const own = customLimits(plan, limits);
    const previous = this.updateEveryRow(keyId, (row) => withPlan(row, plan, own));
    return previous && { previous, record: withPlan(previous, plan, own) };
  }

  async revokeKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const now = new Date().toISOString();
    const previous = this.updateEveryRow(keyId, (row) => withRevocation(row, now));
    return previous && withRevocation(previous, now);
  }

  async setScopes(keyId: string, scopes: readonly Scope[]): Promise<KeyChange | undefined> {
    const previous = this.updateEveryRow(keyId, (row) => withScopes(row, scopes));
    return previous && { previous, record: withScopes(previous, scopes) };
  }

  async setExpiry(keyId: string, expiresAt: string | undefined): Promise<KeyChange | undefined> {
    const previous = this.updateEveryRow(keyId, (row) => withExpiry(row, expiresAt));
    return previous && { previous, record: withExpiry(previous, expiresAt) };
  }

  async rollKey(
    keyId: string,
    options: { graceSeconds: number; tokenStage?: TokenStage },
  ): Promise<RolledKey | undefined> {
    const rows = this.rowsOf(keyId);
    const current = rows.find(isCurrentToken);
    if (!current) return undefined;
    const { token, graceUntil, tokens } = rolledKey(current, options);
    for (const row of rows) this.rows.delete(row.keyHash);
    for (const live of [tokens.current, tokens.old]) if (live) this.rows.set(live.keyHash, live);
    return { record: { ...tokens.current }, token, graceUntil };
  }

  private rowsOf(keyId: string): ApiKeyRecord[] {
    return [...this.rows.values()].filter((row) => row.keyId === keyId);
  }

  /** Applies `update` to every row of a key; the current row before it, or `undefined`. */
  private updateEveryRow(
    keyId: string,
    update: (row: ApiKeyRecord) => ApiKeyRecord,
  ): ApiKeyRecord | undefined {
    const rows = this.rowsOf(keyId);
    const current = rows.find(isCurrentToken);
    if (!current) return undefined;
    for (const row of rows) this.rows.set(row.keyHash, update(row));
    return { ...current };
  }
}
