import { describe, expect, it } from 'vitest';
import { planKeys } from '../../../infra/cli/restore/key-rules.ts';
import type { Item } from '../../../infra/cli/restore/rules.ts';
import { type ApiKeyRecord, newKey, rolledKey } from '../../../shared/keys/key-records.ts';

/** A key's items as the keys table holds them: its head and its current token's row. */
function stored(record: ApiKeyRecord, old?: ApiKeyRecord): Item[] {
  const head = {
    keyHash: record.keyId,
    currentHash: record.keyHash,
    ...(old && { rolledOutHash: old.keyHash }),
  };
  return [head, record, ...(old ? [old] : [])] as unknown as Item[];
}

const proKey = () =>
  newKey({ plan: 'pro', owner: 'Shop', expiresAt: '2027-06-01T00:00:00.000Z' }).record;
const later = '2027-09-01T00:00:00.000Z';
const sooner = '2027-01-01T00:00:00.000Z';

describe('restore rules of the keys table', () => {
  it('puts back a missing key whole: its head and the rows it names, as one write', () => {
    const key = proKey();
    const { tokens } = rolledKey(key, { graceSeconds: 600 });
    const good = stored(tokens.current, tokens.old);

    const { findings } = planKeys(good, []);

    expect(findings).toEqual([
      {
        subject: `key ${key.keyId}`,
        keyId: key.keyId,
        state: 'missing',
        changes: ['put back: head and 2 tokens (Pro)'],
        kept: [],
        writes: good.map((item) => ({ item })),
        restoredKey: tokens.current,
      },
    ]);
  });

  it('leaves a revocation, an earlier expiry and a narrower scope of the live table in force', () => {
    const good = proKey();
    const live = {
      ...good,
      revokedAt: '2026-11-26T09:00:00.000Z',
      expiresAt: sooner,
      scopes: ['pets:read'],
    };

    const { findings } = planKeys(stored(good), stored(live as ApiKeyRecord));

    expect(findings).toEqual([
      expect.objectContaining({
        state: 'differs',
        changes: [],
        writes: [],
        kept: [
          'revoked in the live table at 2026-11-26T09:00:00.000Z: stays revoked',
          `expires at ${sooner} in the live table, 2027-06-01T00:00:00.000Z in the good copy: the earlier stays`,
          'narrower scope in the live table (pets:read): it stays',
        ],
      }),
    ]);
  });

  it('puts back a revocation, an earlier expiry and a narrower scope of the good copy, on the live rows as compared', () => {
    const live = { ...proKey(), expiresAt: later };
    const good = {
      ...live,
      revokedAt: '2026-11-25T09:00:00.000Z',
      expiresAt: sooner,
      scopes: ['pets:read'],
    } as ApiKeyRecord;
    const [liveHead] = stored(live);

    const [finding] = planKeys(stored(good), stored(live)).findings;

    expect(finding?.changes).toEqual([
      'revocation put back',
      `expiry put back to ${sooner}`,
      'scope narrowed to pets:read',
    ]);
    expect(finding?.writes).toEqual([
      { item: good, expected: live },
      { item: liveHead, expected: liveHead },
    ]);
  });

  it('keeps the live plan, limits and owner, which match the gateway', () => {
    const good = proKey();
    const live = {
      ...good,
      plan: 'enterprise',
      perMinute: 900,
      perDay: 9_000,
      owner: 'New owner',
      usageIdentifier: 'another-api-key-value',
    };

    const [finding] = planKeys(stored(good), stored(live as ApiKeyRecord)).findings;

    expect(finding?.writes).toEqual([]);
    expect(finding?.kept).toEqual([
      "plan Enterprise in the live table, Pro in the good copy: the live plan stays, as the gateway's usage plan has it (`npm run keys -- set-plan` moves it)",
      'owner differs: the live owner stays',
      'usageIdentifier differs: the live one stays',
    ]);
  });

  it('never puts back a token rolled out since the good copy', () => {
    const good = proKey();
    const { tokens } = rolledKey(good, { graceSeconds: 0 });

    const [finding] = planKeys(stored(good), stored(tokens.current)).findings;

    expect(finding).toMatchObject({
      state: 'differs',
      writes: [],
      kept: ['rolled since the good copy: its tokens stay as the live table has them'],
    });
  });

  it('puts back a lost head when the live rows are the ones it names', () => {
    const key = proKey();
    const [head, row] = stored(key);

    const [finding] = planKeys(stored(key), [row as Item]).findings;

    expect(finding).toMatchObject({ changes: ['head put back'], writes: [{ item: head }] });
  });

  it('leaves a key whose head is lost and whose tokens were rolled to a person', () => {
    const good = proKey();
    const { tokens } = rolledKey(good, { graceSeconds: 0 });

    const [finding] = planKeys(stored(good), [tokens.current as unknown as Item]).findings;

    expect(finding).toMatchObject({
      writes: [],
      kept: [expect.stringMatching(/left for a person/)],
    });
  });

  it("puts back a lost token row no wider than the key's live row: a revocation there holds", () => {
    const { tokens } = rolledKey(proKey(), { graceSeconds: 600 });
    const old = tokens.old as ApiKeyRecord;
    const good = stored(tokens.current, old);
    const liveOld = { ...old, revokedAt: '2026-11-26T09:00:00.000Z' };
    const [liveHead] = good;

    const [finding] = planKeys(good, [liveHead as Item, liveOld as unknown as Item]).findings;

    expect(finding?.changes).toEqual([`token row ${tokens.current.keyHash.slice(0, 8)}… put back`]);
    expect(finding?.writes).toEqual([
      { item: { ...tokens.current, revokedAt: liveOld.revokedAt } },
      { item: liveHead, expected: liveHead },
    ]);
  });

  it('finds nothing in a key the live table holds as the good copy, nor in keys made since', () => {
    const key = proKey();

    expect(planKeys(stored(key), [...stored(key), ...stored(proKey())]).findings).toEqual([]);
  });
});
