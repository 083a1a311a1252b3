/** How far pet ids stray from creation order (docs/api.md). */

/**
 * Longest an instance hands out ids from one leased block, in milliseconds. A pet created after
 * another gets a smaller id only if both were created within this time of each other, so pages
 * whose last id was issued longer ago than this (plus the index's lag) no longer change.
 */
export const ID_BLOCK_LIFETIME_MS = 1_000;
