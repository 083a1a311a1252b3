/** A pet's item in the pets table and its `status-index` shard (docs/architecture.md). */
import { createHash } from 'node:crypto';
import type { Pet, PetStatus } from '../pets/schemas.ts';

/** GSI of the pets table serving `GET /pets`. */
export const STATUS_INDEX = 'status-index';

/** `status-index`'s partition key: `<status>#<shard>`. */
export const STATUS_SHARD_ATTRIBUTE = 'statusShard';

/** Shards per status (each one's write load: docs/architecture.md, "The status index"). */
export const STATUS_SHARDS = 32;

/**
 * `<status>#<n>`, `n` the first four bytes (big-endian) of the SHA-256 of the id's digits modulo 32.
 * @example statusShardOf('available', 42) → 'available#20' (`printf 42 | sha256sum`: 73475cb4…)
 */
export function statusShardOf(status: PetStatus, id: number): string {
  const digest = createHash('sha256').update(String(id)).digest();
  return `${status}#${digest.readUInt32BE(0) % STATUS_SHARDS}`;
}

/** The item of `pet`, with its shard and `createdAt` (epoch ms, after its id was issued). */
export function petItem(pet: Pet, createdAtMs: number): Record<string, unknown> {
  return {
    ...pet,
    [STATUS_SHARD_ATTRIBUTE]: statusShardOf(pet.status, pet.id),
    createdAt: new Date(createdAtMs).toISOString(),
  };
}

/** The Pet fields of a stored item. */
export function petOf(item: Record<string, unknown>): Pet {
  return {
    id: item.id as number,
    name: item.name as string,
    categoryId: item.categoryId as number,
    status: item.status as PetStatus,
  };
}
