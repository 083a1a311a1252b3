/** How far pet ids stray from creation order (docs/api.md), and their arithmetic across regions. */
import { isMultiRegion, MAX_REGIONS, type Regions } from '../regions.ts';

/**
 * Longest an instance hands out ids from one leased block, in milliseconds. A pet created after
 * another gets a smaller id only if both were created within this time of each other, so pages
 * whose last id was issued longer ago than this (plus the index's lag) no longer change.
 */
export const ID_BLOCK_LIFETIME_MS = 1_000;

/** Zero of the sequences' clock floor (several regions): 2026-01-01T00:00:00Z, epoch ms. */
export const ID_FLOOR_EPOCH_MS = Date.UTC(2026, 0, 1);

/**
 * Sequence values the clock floor gains per ms: above any region's creates, so ids stay k-sorted
 * across regions, and safe integers until 2204 (docs/architecture.md, "Regions").
 */
export const ID_FLOOR_PER_MS = 100;

/** The least sequence value a lease at `nowMs` (epoch ms) takes with several regions. */
export function idFloor(nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - ID_FLOOR_EPOCH_MS) * ID_FLOOR_PER_MS));
}

/**
 * The id of sequence value `value` of region `at` (@default regions.own): `value` with one region,
 * else `value × MAX_REGIONS + at`, each region's residue modulo 16.
 */
export function petIdOf(value: number, regions: Regions, at = regions.own): number {
  return isMultiRegion(regions) ? value * MAX_REGIONS + at : value;
}
