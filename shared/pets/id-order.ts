/**
 * How far pet ids may stray from creation order (docs/api.md, "Order and paging guarantees"), and
 * the arithmetic of ids in a stage of several regions (docs/architecture.md, "Regions"). Pure.
 */
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
 * Sequence values the clock floor gains per millisecond (several regions): far above any region's
 * creates, so each region's sequence follows the clock and ids stay k-sorted across regions;
 * ids stay safe integers until 2204 (`MAX_REGIONS` × 100 × ms since `ID_FLOOR_EPOCH_MS`).
 */
export const ID_FLOOR_PER_MS = 100;

/**
 * The least sequence value a lease at `nowMs` (epoch ms) may take, in a stage of several regions:
 * 100 a millisecond since 2026-01-01, never negative.
 */
export function idFloor(nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - ID_FLOOR_EPOCH_MS) * ID_FLOOR_PER_MS));
}

/**
 * The pet id of the sequence value `value` of the region `at`: `value` itself in a stage of one
 * region (as before regions), else `value × MAX_REGIONS + at`, so that the regions' ids are
 * disjoint residues modulo 16 whatever their sequences hold.
 * @param at Place of the region in `regions.names`. @default regions.own
 */
export function petIdOf(value: number, regions: Regions, at = regions.own): number {
  return isMultiRegion(regions) ? value * MAX_REGIONS + at : value;
}
