/** listPets's page cache, kept per instance (docs/architecture.md, "The status index"). */
import { isMultiRegion, type Regions } from '../regions.ts';
import { ID_BLOCK_LIFETIME_MS } from './id-order.ts';
import type { Pet } from './schemas.ts';

/** How long a page that new pets may still enter (a tail page) is kept, in ms. */
export const TAIL_PAGE_TTL_MS = 1_000;

/** Longest a pet's write may land after its id was issued, ms: createPet's timeout (routes.ts). */
export const PET_WRITE_BOUND_MS = 10_000;

/** Allowance for `status-index`'s lag and for clock skew between instances, ms. */
export const INDEX_LAG_ALLOWANCE_MS = 5_000;

/** How long after its newest pet was created a page is settled, in ms. */
export const SETTLED_AFTER_MS = ID_BLOCK_LIFETIME_MS + PET_WRITE_BOUND_MS + INDEX_LAG_ALLOWANCE_MS;

/** Allowance for replication between regions (global tables: about a second), ms. */
export const REPLICATION_LAG_ALLOWANCE_MS = 10_000;

/** {@link SETTLED_AFTER_MS}, plus {@link REPLICATION_LAG_ALLOWANCE_MS} with several regions. */
export function settledAfterMs(regions: Regions): number {
  return SETTLED_AFTER_MS + (isMultiRegion(regions) ? REPLICATION_LAG_ALLOWANCE_MS : 0);
}

/** How long a settled page is kept, in ms (bounds the cost of an exceeded allowance). */
export const SETTLED_PAGE_TTL_MS = 10 * 60_000;

/** Most pets a cache holds over all its pages (about 2.4 MB; docs/architecture.md). */
export const PAGE_CACHE_MAX_PETS = 20_000;

/**
 * When a page read at `fetchedAtMs` expires: a full page whose newest pet is settled after
 * {@link SETTLED_PAGE_TTL_MS}, any other after {@link TAIL_PAGE_TTL_MS}.
 * @param newestCreatedAtMs Epoch ms (NaN: unknown, a tail). @param settledAfter @default SETTLED_AFTER_MS
 */
export function pageExpiry(
  fetchedAtMs: number,
  full: boolean,
  newestCreatedAtMs: number,
  settledAfter = SETTLED_AFTER_MS,
): number {
  const settled = full && fetchedAtMs - newestCreatedAtMs > settledAfter;
  return fetchedAtMs + (settled ? SETTLED_PAGE_TTL_MS : TAIL_PAGE_TTL_MS);
}

interface Entry {
  readonly pets: readonly Pet[];
  readonly expiresAt: number;
}

/** A least-recently-used map of pages, bounded by the pets it holds (a page counts one more). */
export class PageCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  /** @param maxPets Most pets held over all pages. @default PAGE_CACHE_MAX_PETS */
  constructor(readonly maxPets = PAGE_CACHE_MAX_PETS) {}

  /** Each page counts one more. */
  get size(): number {
    return this.held;
  }

  /** The page under `key` if it has not expired at `nowMs`, now the most recently used. */
  get(key: string, nowMs: number): readonly Pet[] | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.delete(key, entry);
    if (entry.expiresAt <= nowMs) return undefined;
    this.entries.set(key, entry);
    this.held += entry.pets.length + 1;
    return entry.pets;
  }

  /** Keeps `pets` under `key` until `expiresAt` (epoch ms), evicting the least recently used. */
  set(key: string, pets: readonly Pet[], expiresAt: number): void {
    const old = this.entries.get(key);
    if (old) this.delete(key, old);
    this.entries.set(key, { pets, expiresAt });
    this.held += pets.length + 1;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.maxPets) break;
      this.delete(oldest, entry);
    }
  }

  private delete(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.held -= entry.pets.length + 1;
  }
}
