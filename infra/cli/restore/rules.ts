/**
 * What a restore does, decided from two scans and nothing else (no AWS SDK here): the shapes every
 * table's rules return, and the rules of the pets table. The keys table's are in key-rules.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import { PET_ID_SEQUENCE_ID } from '../../../shared/dynamodb/id-blocks.ts';
import { statusShardOf } from '../../../shared/dynamodb/pet-item.ts';
import { STATUS_SHARD_ATTRIBUTE } from '../../../shared/dynamodb/tables.ts';
import type { ItemWrite } from '../../../shared/keys/admin-ports.ts';
import type { ApiKeyRecord } from '../../../shared/keys/key-records.ts';
import type { PetStatus } from '../../../shared/pets/schemas.ts';

/** A stored item, as a Scan of the document client returns it. */
export type Item = Record<string, unknown>;

/** What the comparison found for one pet or one key, and what restoring it writes. */
export interface Finding {
  /** `pet 12`, `key key_0123…`. */
  readonly subject: string;
  /** `missing`: not in the live table at all; `differs`: there, but not as in the good copy. */
  readonly state: 'missing' | 'differs';
  /** What the writes do, one phrase each (empty: nothing is written). */
  readonly changes: readonly string[];
  /** What stays as the live table has it, and why, one phrase each. */
  readonly kept: readonly string[];
  /** Written together (one transaction), each conditional; empty: left as is. */
  readonly writes: readonly ItemWrite[];
  /** The key a finding of the keys table is of: its writes go through the key service. */
  readonly keyId?: string;
  /** A key put back whole, whose API key a stage's gateway needs again. */
  readonly restoredKey?: ApiKeyRecord;
}

/** A table's restore: its findings, and for the pets table how far the id sequence must go up. */
export interface RestorePlan {
  readonly findings: readonly Finding[];
  /** The id sequence's `value` to raise the live one to (never lowered): ids stay unique. */
  readonly sequence?: { readonly live: number | undefined; readonly to: number };
}

/** Whether two items hold the same attributes with the same values. */
export function sameItem(a: Item, b: Item): boolean {
  return isDeepStrictEqual(a, b);
}

/** The attributes whose values differ between two items (either side's), sorted. */
export function differingAttributes(a: Item, b: Item): string[] {
  const names = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...names].filter((name) => !isDeepStrictEqual(a[name], b[name])).sort();
}

/** A pet item as restored: the good copy's, with its `status-index` partition key, so it lists. */
function restoredPet(item: Item): Item {
  return {
    ...item,
    [STATUS_SHARD_ATTRIBUTE]: statusShardOf(item.status as PetStatus, item.id as number),
  };
}

/** The sequence item's `value` in a table's items, if it has one. */
function sequenceValue(items: readonly Item[]): number | undefined {
  const value = items.find((item) => item.id === PET_ID_SEQUENCE_ID)?.value;
  return value === undefined ? undefined : Number(value);
}

/**
 * The restore of the pets table from the good copy `good` into the live table `live`.
 *
 * A pet missing from the live table is put back (its `statusShard` recomputed, so it lists
 * again); one that differs is put back only with `overwrite`, else reported. The id sequence
 * (item 0) is never copied back: it is raised, when below, to the highest id either the good copy
 * handed out or holds, so that ids handed out after the restore point stay unique.
 *
 * @param good Every item of the good copy (pets and the sequence item).
 * @param live Every item of the live table.
 */
export function planPets(
  good: readonly Item[],
  live: readonly Item[],
  { overwrite }: { readonly overwrite: boolean },
): RestorePlan {
  const liveById = new Map(live.map((item) => [item.id, item]));
  const pets = good
    .filter((item) => item.id !== PET_ID_SEQUENCE_ID)
    .sort((a, b) => Number(a.id) - Number(b.id));
  const findings: Finding[] = [];
  for (const pet of pets) {
    const item = restoredPet(pet);
    const subject = `pet ${pet.id}`;
    const current = liveById.get(pet.id);
    if (!current) {
      const put = `put back (${pet.name}, ${pet.status})`;
      findings.push({ subject, state: 'missing', changes: [put], kept: [], writes: [{ item }] });
      continue;
    }
    if (sameItem(current, item)) continue;
    const fields = differingAttributes(current, item).join(', ');
    findings.push(
      overwrite
        ? {
            subject,
            state: 'differs',
            changes: [`${fields} put back as in the good copy (--overwrite)`],
            kept: [],
            writes: [{ item, expected: current }],
          }
        : {
            subject,
            state: 'differs',
            changes: [],
            kept: [`${fields} differ: the live pet stays (--overwrite puts the good copy back)`],
            writes: [],
          },
    );
  }
  const to = Math.max(sequenceValue(good) ?? 0, ...pets.map((pet) => Number(pet.id)));
  const liveSequence = sequenceValue(live);
  const raise = pets.length > 0 && (liveSequence === undefined || liveSequence < to);
  return { findings, ...(raise && { sequence: { live: liveSequence, to } }) };
}
