/**
 * The restore rules of the keys table (docs/operations.md, "Recovering lost pets or keys"): put
 * back what is missing, never widen access. Pure: two scans in, a `RestorePlan` out.
 */
import { isAccountItem } from '../../../shared/dynamodb/account-items.ts';
import type { KeyHead } from '../../../shared/dynamodb/key-conditions.ts';
import { isHead } from '../../../shared/dynamodb/key-conditions.ts';
import type { ItemWrite } from '../../../shared/keys/admin-ports.ts';
import type { ApiKeyRecord } from '../../../shared/keys/key-records.ts';
import { SCOPES } from '../../../shared/keys/scopes.ts';
import { planName } from '../../../shared/plans.ts';
import { type Finding, type Item, type RestorePlan, sameItem } from './rules.ts';

/** A key as one table holds it: its head (if any) and its token rows by hash. */
interface StoredKey {
  readonly head?: KeyHead;
  readonly rows: ReadonlyMap<string, ApiKeyRecord>;
}

/** Whether a scanned item is a key's head (`isHead`): read as one. */
function isHeadItem(item: Item): item is Item & KeyHead {
  return isHead(item);
}

/** A head or token row as a write's item: its attributes as a scan returns them. */
function itemOf(record: KeyHead | ApiKeyRecord): Item {
  return { ...record };
}

/** The keys of a table's items, by key id. */
function keysOf(items: readonly Item[]): Map<string, StoredKey> {
  const keys = new Map<string, { head?: KeyHead; rows: Map<string, ApiKeyRecord> }>();
  const entry = (keyId: string) => {
    const key = keys.get(keyId) ?? { rows: new Map<string, ApiKeyRecord>() };
    keys.set(keyId, key);
    return key;
  };
  for (const item of items) {
    // An account's set of active keys is the key service's count, not a key: never put back.
    if (isAccountItem(item)) continue;
    if (isHeadItem(item)) entry(item.keyHash).head = item;
    else {
      const row = item as Item & ApiKeyRecord;
      entry(row.keyId).rows.set(row.keyHash, row);
    }
  }
  return keys;
}

/** The earlier of two ISO 8601 times, `undefined` standing for never. */
function earlier(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return Date.parse(a) <= Date.parse(b) ? a : b;
}

/** The hashes of the token rows a head names: its current token, and a rolled-out one. */
function named(head: KeyHead): string[] {
  return [head.currentHash, ...(head.rolledOutHash === undefined ? [] : [head.rolledOutHash])];
}

/**
 * `row` as a restore writes it: the live key's plan, limits, owner and identity; the narrower
 * access of the live key and the good copy's (a revocation in either, the earlier expiry, the
 * scopes both grant); the earlier end of grace when both are the same rolled-out token.
 */
function narrowed(row: ApiKeyRecord, live: ApiKeyRecord, good: ApiKeyRecord): ApiKeyRecord {
  const {
    revokedAt: _revokedAt,
    expiresAt: _expiresAt,
    perMinute: _perMinute,
    perDay: _perDay,
    owner: _owner,
    ...rest
  } = row;
  const revokedAt = earlier(live.revokedAt, good.revokedAt);
  const expiresAt = earlier(live.expiresAt, good.expiresAt);
  const sameToken = live.keyHash === good.keyHash;
  const graceUntil = sameToken ? earlier(live.graceUntil, good.graceUntil) : row.graceUntil;
  return {
    ...rest,
    plan: live.plan,
    ...(live.perMinute !== undefined && { perMinute: live.perMinute }),
    ...(live.perDay !== undefined && { perDay: live.perDay }),
    ...(live.owner !== undefined && { owner: live.owner }),
    scopes: SCOPES.filter((scope) => live.scopes.includes(scope) && good.scopes.includes(scope)),
    usageIdentifier: live.usageIdentifier,
    createdAt: live.createdAt,
    ...(revokedAt && { revokedAt }),
    ...(expiresAt && { expiresAt }),
    ...(graceUntil && { graceUntil }),
  };
}

/** What the narrowing of `live` by `good` changes, one phrase each. */
function narrowings(live: ApiKeyRecord, good: ApiKeyRecord): string[] {
  const result = narrowed(live, live, good);
  return [
    !live.revokedAt && result.revokedAt && 'revocation put back',
    result.expiresAt !== live.expiresAt && `expiry put back to ${result.expiresAt}`,
    result.scopes.length < live.scopes.length && `scope narrowed to ${result.scopes.join(' ')}`,
    result.graceUntil !== live.graceUntil && `old token's grace ended at ${result.graceUntil}`,
  ].filter((phrase): phrase is string => typeof phrase === 'string');
}

/** Where the live key is narrower than the good copy or otherwise differs, and stays so. */
function keptAsLive(live: ApiKeyRecord, good: ApiKeyRecord): string[] {
  const expiresAt = earlier(live.expiresAt, good.expiresAt);
  const liveScopes = live.scopes.join(' ');
  return [
    live.revokedAt &&
      !good.revokedAt &&
      `revoked in the live table at ${live.revokedAt}: stays revoked`,
    expiresAt === live.expiresAt &&
      live.expiresAt !== good.expiresAt &&
      `expires at ${live.expiresAt} in the live table, ${good.expiresAt ?? 'never'} in the good copy: the earlier stays`,
    live.scopes.length < good.scopes.length &&
      `narrower scope in the live table (${liveScopes}): it stays`,
    (live.plan !== good.plan || live.perMinute !== good.perMinute || live.perDay !== good.perDay) &&
      `plan ${planName(live.plan)} in the live table, ${planName(good.plan)} in the good copy: the live plan stays, as the gateway's usage plan has it (\`npm run keys -- set-plan\` moves it)`,
    live.owner !== good.owner && `owner differs: the live owner stays`,
    ...(['usageIdentifier', 'createdAt'] as const)
      .filter((name) => live[name] !== good[name])
      .map((name) => `${name} differs: the live one stays`),
  ].filter((phrase): phrase is string => typeof phrase === 'string');
}

/** The restore of one key present in the good copy; `undefined` when the live key is as good. */
function planKey(keyId: string, good: StoredKey, live: StoredKey | undefined): Finding | undefined {
  const subject = `key ${keyId}`;
  const goodHead = good.head as KeyHead;
  const goodCurrent = good.rows.get(goodHead.currentHash);
  if (!goodCurrent) return undefined;
  const liveRows = live?.rows ?? new Map<string, ApiKeyRecord>();
  if (!live?.head && liveRows.size === 0) {
    const rows = named(goodHead).flatMap((hash) => good.rows.get(hash) ?? []);
    const tokens = rows.length === 1 ? '1 token' : `${rows.length} tokens`;
    return {
      subject,
      keyId,
      state: 'missing',
      changes: [`put back: head and ${tokens} (${planName(goodCurrent.plan)})`],
      kept: [],
      writes: [goodHead, ...rows].map((record) => ({ item: itemOf(record) })),
      restoredKey: goodCurrent,
    };
  }
  const head = live?.head ?? goodHead;
  const orphans = [...liveRows.keys()].filter((hash) => !named(head).includes(hash));
  if (!live?.head && orphans.length > 0) {
    return {
      subject,
      keyId,
      state: 'differs',
      changes: [],
      kept: [
        'its head is missing and its tokens were rolled since the good copy: left for a person',
      ],
      writes: [],
    };
  }
  const changes: string[] = [];
  const kept: string[] = [];
  const writes: ItemWrite[] = [];
  if (!live?.head) {
    changes.push('head put back');
    writes.push({ item: itemOf(goodHead) });
  } else if (head.currentHash !== goodHead.currentHash) {
    kept.push('rolled since the good copy: its tokens stay as the live table has them');
  }
  const reference = liveRows.get(head.currentHash) ?? [...liveRows.values()][0];
  for (const hash of named(head)) {
    const liveRow = liveRows.get(hash);
    const goodRow = good.rows.get(hash);
    if (liveRow) {
      const next = narrowed(liveRow, liveRow, goodRow ?? goodCurrent);
      changes.push(...narrowings(liveRow, goodRow ?? goodCurrent));
      kept.push(...keptAsLive(liveRow, goodRow ?? goodCurrent));
      if (!sameItem(itemOf(next), itemOf(liveRow))) {
        writes.push({ item: itemOf(next), expected: itemOf(liveRow) });
      }
    } else if (goodRow) {
      changes.push(`token row ${hash.slice(0, 8)}… put back`);
      const row = reference ? narrowed(goodRow, reference, goodRow) : goodRow;
      writes.push({ item: itemOf(row) });
    } else {
      kept.push(`token row ${hash.slice(0, 8)}… is in neither table: roll the key`);
    }
  }
  const unique = (phrases: string[]) => [...new Set(phrases)];
  if (writes.length === 0 && kept.length === 0) return undefined;
  // Rewriting the live head as read: the writes land only while no roll has moved it.
  if (writes.length > 0 && live?.head) {
    writes.push({ item: itemOf(live.head), expected: itemOf(live.head) });
  }
  return {
    subject,
    keyId,
    state: 'differs',
    changes: unique(changes),
    kept: unique(kept),
    writes,
  };
}

/**
 * The restore of the keys table from the good copy `good` into the live table `live`.
 *
 * A key missing from the live table is put back whole: its head and the token rows it names. A
 * key that differs is put back only in ways that never widen access: a revocation in either table
 * stays, the earlier expiry and the scopes both grant win; its plan, limits, owner and usage
 * identifier stay as the live table has them (they match the gateway's usage plan). A token the
 * live head no longer names (rolled since the good copy) is never put back.
 *
 * @param good Every item of the good copy (heads and token rows).
 * @param live Every item of the live table.
 */
export function planKeys(good: readonly Item[], live: readonly Item[]): RestorePlan {
  const liveKeys = keysOf(live);
  const findings = [...keysOf(good)]
    .filter(([, key]) => key.head !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([keyId, key]) => planKey(keyId, key, liveKeys.get(keyId)) ?? []);
  return { findings };
}
