/** A pet's item in the pets table and its `status-index` shard (docs/architecture.md). */
import { createHash } from 'node:crypto';
import type { Pet, PetStatus } from '../pets/schemas.ts';

/** GSI of the pets table serving `GET /pets` (its definition: tables.ts). */
export const STATUS_INDEX = 'status-index';

/** The pet item's attribute that is `status-index`'s partition key: `<status>#<shard>`. */
export const STATUS_SHARD_ATTRIBUTE = 'statusShard';

/** Shards per status (each one's write load: docs/architecture.md, "The status index"). */
export const STATUS_SHARDS = 32;

/**
 * The `status-index` partition key value of a pet: `<status>#<n>`, `n` the first four bytes of the
 * SHA-256 of the id's decimal digits (big-endian) modulo {@link STATUS_SHARDS}.
 * @example statusShardOf('available', 42) → 'available#20' (`printf 42 | sha256sum`: 73475cb4…)
 */
export function statusShardOf(status: PetStatus, id: number): string {
  const digest = createHash('sha256').update(String(id)).digest();
  return `${status}#${digest.readUInt32BE(0) % STATUS_SHARDS}`;
}

/**
 * The pets-table item of `pet`, with its shard and `createdAt` (read by the page cache).
 * @param createdAtMs When the item is built, epoch ms, after its id was issued.
 */
export function petItem(pet: Pet, createdAtMs: number): Record<string, unknown> {
  return {
    ...pet,
    [STATUS_SHARD_ATTRIBUTE]: statusShardOf(pet.status, pet.id),
    createdAt: new Date(createdAtMs).toISOString(),
  };
}

/** Keeps only the Pet fields of a stored item (it also holds `statusShard` and `createdAt`). */
export function petOf(item: Record<string, unknown>): Pet {
  return {
    id: item.id as number,
    name: item.name as string,
    categoryId: item.categoryId as number,
    status: item.status as PetStatus,
  };
}
