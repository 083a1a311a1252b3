/**
 * A pet's item in the pets table, and the shards of `status-index`: its partition key `statusShard`
 * is `<status>#<shard>`, the shard a hash of the pet's id, so that one status's writes spread over
 * {@link STATUS_SHARDS} partition key values (docs/architecture.md, "The status index's shards").
 */
import { createHash } from 'node:crypto';
import type { Pet, PetStatus } from '../pets/schemas.ts';
import { STATUS_SHARD_ATTRIBUTE } from './tables.ts';

/**
 * Shards per status. 10,000 creates/s of one status write 625 GSI units/s to each (two units per
 * pet item under 1 KB when it is written in a transaction, as a create with an Idempotency-Key is),
 * 0.63 of a partition's 1,000; a second's hash spread adds about 0.09 (docs/architecture.md).
 */
export const STATUS_SHARDS = 32;

/**
 * The `status-index` partition key value of a pet: `<status>#<n>`, `n` from 0 to
 * {@link STATUS_SHARDS} − 1, the first four bytes of the SHA-256 of the id's decimal digits (an
 * unsigned big-endian integer) modulo the shards. A hash, not `id mod` shards: ids come in leased
 * blocks, and an instance that uses only the first few ids of each block would fill the low
 * shards; a hash spreads any pattern of ids. SHA-256 because `printf 42 | sha256sum` gives the
 * same shard anywhere (an operator, the bench's meter).
 *
 * @example statusShardOf('available', 42) → 'available#20' (`printf 42 | sha256sum`: 73475cb4…)
 */
export function statusShardOf(status: PetStatus, id: number): string {
  const digest = createHash('sha256').update(String(id)).digest();
  return `${status}#${digest.readUInt32BE(0) % STATUS_SHARDS}`;
}

/** Every `status-index` partition key value of `status`, shard 0 first. */
export function statusShardsOf(status: PetStatus): string[] {
  return Array.from({ length: STATUS_SHARDS }, (_, shard) => `${status}#${shard}`);
}

/**
 * The pets-table item of `pet`: the pet, its {@link STATUS_SHARD_ATTRIBUTE}, and `createdAt`
 * (ISO 8601), which listPets's page cache reads to tell a settled page (pets/page-cache.ts).
 *
 * @param createdAtMs When the item is built, epoch ms, on the store's clock: after its id was
 *   issued, never before.
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
