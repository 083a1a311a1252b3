/**
 * listPets's page cache: one status's merged `status-index` reads, kept in the listPets function's
 * instance (docs/architecture.md, "The page cache"). Pets never change after creation, so a page
 * that no new pet can enter is kept for long, any other page briefly.
 */
import { ID_BLOCK_LIFETIME_MS } from './id-order.ts';
import type { Pet } from './schemas.ts';

/** How long a page that new pets may still enter (a tail page) is kept, in ms. */
export const TAIL_PAGE_TTL_MS = 1_000;

/**
 * Longest a pet's write may land after its id was issued, in ms: createPet's function timeout
 * (`FUNCTION_TIMEOUT_SECONDS` in infra/routes.ts), after which its invocation is gone.
 */
export const PET_WRITE_BOUND_MS = 10_000;

/** Allowance for `status-index`'s lag behind the table and for skew between instances' clocks, ms. */
export const INDEX_LAG_ALLOWANCE_MS = 5_000;

/**
 * How long after its newest pet was created a page is settled, in ms: every smaller id was issued
 * within {@link ID_BLOCK_LIFETIME_MS} of it, written within {@link PET_WRITE_BOUND_MS} and indexed
 * within {@link INDEX_LAG_ALLOWANCE_MS}.
 */
export const SETTLED_AFTER_MS = ID_BLOCK_LIFETIME_MS + PET_WRITE_BOUND_MS + INDEX_LAG_ALLOWANCE_MS;

/**
 * How long a settled page is kept, in ms: pages never change, but should an allowance above ever
 * be exceeded, a page missing a pet is not kept for the life of the instance.
 */
export const SETTLED_PAGE_TTL_MS = 10 * 60_000;

/**
 * Most pets a cache holds over all its pages: about 2.4 MB of the function's 256 MB at 120 bytes a
 * pet (V8 heap, 30-character names), at most about 7 MB with 100-character names.
 */
export const PAGE_CACHE_MAX_PETS = 20_000;

/**
 * When a page read at `fetchedAtMs` expires: {@link SETTLED_PAGE_TTL_MS} after it if it is full
 * and its newest pet was created more than {@link SETTLED_AFTER_MS} before the read, else
 * {@link TAIL_PAGE_TTL_MS} after it.
 *
 * @param full Whether the read returned as many pets as it asked for (a short read is the tail).
 * @param newestCreatedAtMs `createdAt` of the page's newest pet, epoch ms (NaN when unknown: a tail).
 */
export function pageExpiry(fetchedAtMs: number, full: boolean, newestCreatedAtMs: number): number {
  const settled = full && fetchedAtMs - newestCreatedAtMs > SETTLED_AFTER_MS;
  return fetchedAtMs + (settled ? SETTLED_PAGE_TTL_MS : TAIL_PAGE_TTL_MS);
}

interface Entry {
  readonly pets: readonly Pet[];
  readonly expiresAt: number;
}

/**
 * A least-recently-used map of pages, bounded by the pets it holds (a page counts its pets plus
 * one). Not `lru-cache`: its 18 KiB would take listPets's bundle past 1.40× the floor
 * (docs/measurements.md); a Map keeps insertion order, which is all an LRU needs.
 */
export class PageCache {
  private readonly entries = new Map<string, Entry>();
  private held = 0;

  /** @param maxPets Most pets held over all pages. @default PAGE_CACHE_MAX_PETS */
  constructor(readonly maxPets = PAGE_CACHE_MAX_PETS) {}

  /** The pets held, each page counting one more. */
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
