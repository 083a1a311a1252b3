/**
 * What every key store does for the authorizer (`KeyLookup`), as one suite that each adapter's
 * test file runs: a token's key found by the token, with what its row holds (a revocation, a
 * roll's grace), and nothing for an unknown token. How keys change is the key service's, on
 * DynamoDB (test/dynamodb/key-service.test.ts, key-rolls.test.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { KeyLookup } from '../../shared/keys/key-lookup.ts';
import type { ApiKeyRecord, IssuedKey, NewKeyInput } from '../../shared/keys/key-records.ts';
import { generateToken } from '../../shared/keys/token.ts';

/** A key store as the contract uses it: the lookup, and a way to seed a key's row into it. */
export interface SeededLookup {
  readonly lookup: KeyLookup;
  /** Puts a new key's row (with `fields`) where the lookup reads it. */
  seedKey(input: NewKeyInput, fields?: Partial<ApiKeyRecord>): Promise<IssuedKey>;
}

/** Runs the key stores' contract on the store `make` builds (once, before the suite). */
export function keyStoreContract(adapter: string, make: () => SeededLookup): void {
  describe(`Key store contract: ${adapter}`, () => {
    let keys: SeededLookup;
    beforeAll(() => {
      keys = make();
    });

    it('finds a key by its token, as its row holds it', async () => {
      const { record, token } = await keys.seedKey({ plan: 'pro', owner: 'contract' });

      expect(await keys.lookup.findByToken(token)).toEqual(record);
      expect(await keys.lookup.findByToken(`${token}x`)).toBeUndefined();
      expect(await keys.lookup.findByToken(generateToken())).toBeUndefined();
    });

    it("finds a revoked key and a rolled key's old token with what their rows hold", async () => {
      const revokedAt = '2030-01-01T00:00:00.000Z';
      const graceUntil = '2031-01-01T00:00:00.000Z';
      const revoked = await keys.seedKey({ plan: 'free' }, { revokedAt });
      const old = await keys.seedKey(
        { plan: 'enterprise', limits: { perMinute: 7, perDay: 70 } },
        {
          graceUntil,
        },
      );

      expect(await keys.lookup.findByToken(revoked.token)).toMatchObject({ revokedAt });
      expect(await keys.lookup.findByToken(old.token)).toEqual({
        ...old.record,
        perMinute: 7,
        perDay: 70,
        graceUntil,
      });
    });
  });
}
