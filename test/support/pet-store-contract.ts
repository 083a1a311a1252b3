/**
 * What every PetStore does, as one suite that each adapter's test file runs (DynamoDB on DynamoDB
 * Local, the in-memory one in test/support): ids, reads, pages, and the create that writes an
 * idempotency record in the same write.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_RECORD_TTL_SECONDS } from '../../shared/idempotency/record.ts';
import type { PetStore } from '../../shared/pets/pet-store.ts';
import type { NewPet } from '../../shared/pets/schemas.ts';

/**
 * Runs the PetStore contract on the store `make` builds (once, before the suite), with
 * idempotency records and `now` as its clock.
 */
export function petStoreContract(adapter: string, make: (now: () => number) => PetStore): void {
  describe(`PetStore contract: ${adapter}`, () => {
    let pets: PetStore;
    let nowMs = Date.now();
    beforeAll(() => {
      pets = make(() => nowMs);
    });
    const create = (newPet: Partial<NewPet> = {}) =>
      pets.createPet({ name: 'Rex', categoryId: 1, status: 'available', ...newPet });

    it('issues ascending, unique ids and gives back exactly the pet it stored', async () => {
      const first = await create({ name: 'First', status: 'pending' });
      const second = await create({ name: 'Second', categoryId: 9 });

      expect(second.id).toBeGreaterThan(first.id);
      expect(first).toEqual({ id: first.id, name: 'First', categoryId: 1, status: 'pending' });
      expect(await pets.getPet(first.id)).toEqual(first);
      expect(await pets.getPet(second.id)).toEqual(second);
    });

    it('answers undefined for an id it never issued', async () => {
      const pet = await create();

      expect(await pets.getPet(pet.id + 1000)).toBeUndefined();
    });

    it('pages through the pets after afterId in ascending id, saying whether more follow', async () => {
      const before = (await create()).id;
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await create({ name: `Paged ${i}` }));

      const first = await pets.listPets({ limit: 3, afterId: before });
      const last = await pets.listPets({ limit: 3, afterId: first.pets.at(-1)?.id });

      expect(first).toEqual({ pets: created.slice(0, 3), hasMore: true });
      expect(last).toEqual({ pets: created.slice(3), hasMore: false });
    });

    it('lists only the pets of the status asked for', async () => {
      const before = (await create()).id;
      const sold = [await create({ status: 'sold' }), await create({ status: 'sold' })];
      await create({ status: 'pending' });

      const page = await pets.listPets({ limit: 10, status: 'sold', afterId: before });

      expect(page).toEqual({ pets: sold, hasMore: false });
    });

    /** A create of `name` that writes the record of `id` with body fingerprint `fingerprint`. */
    const recorded = (id: string, fingerprint: string, name = 'Once') =>
      pets.createPetOnce({ name, categoryId: 1, status: 'available' }, { id, fingerprint });
    /** The pet of a create that wrote its record. */
    async function createdOnce(id: string, fingerprint: string, name?: string) {
      const outcome = await recorded(id, fingerprint, name);
      if (outcome.status !== 'created') throw new Error(`expected created, not ${outcome.status}`);
      return outcome.result;
    }

    it('writes the record with the pet; a repeat of the key finds it and writes nothing', async () => {
      const id = randomUUID();
      const pet = await createdOnce(id, 'f');
      const before = (await create()).id;

      expect(await recorded(id, 'f', 'Twice')).toEqual({ status: 'replayed', result: pet });
      expect(await recorded(id, 'another body', 'Twice')).toEqual({ status: 'reused' });
      expect(await pets.getPet(pet.id)).toEqual(pet);
      expect((await pets.listPets({ limit: 10, afterId: before })).pets).toEqual([]);
    });

    it('replays the pet in the field order of its first answer', async () => {
      const id = randomUUID();
      const pet = await createdOnce(id, 'f');

      const replay = await recorded(id, 'f');

      expect(replay.status === 'replayed' && JSON.stringify(replay.result)).toBe(
        JSON.stringify(pet),
      );
    });

    it('writes anew over a record that expired (24 h after it was written)', async () => {
      const id = randomUUID();
      const first = await createdOnce(id, 'f');
      nowMs += (IDEMPOTENCY_RECORD_TTL_SECONDS + 1) * 1000;

      const second = await createdOnce(id, 'another body', 'Next day');

      expect(second.id).not.toBe(first.id);
      expect(await recorded(id, 'another body')).toEqual({ status: 'replayed', result: second });
      expect(await recorded(id, 'f')).toEqual({ status: 'reused' });
    });
  });
}
