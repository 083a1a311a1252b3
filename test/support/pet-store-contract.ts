/**
 * What every PetStore does, as one suite that each adapter's test file runs (DynamoDB on DynamoDB
 * Local, the in-memory one in test/support): ids, reads, pages, and the create that completes an
 * idempotency record in the same write.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyLockLostError } from '../../shared/idempotency/errors.ts';
import type {
  IdempotencyStore,
  StoredResponse,
} from '../../shared/idempotency/idempotency-store.ts';
import type { PetStore } from '../../shared/pets/pet-store.ts';
import type { NewPet, Pet } from '../../shared/pets/schemas.ts';

/** A pet store and the idempotency records its creates complete. */
export interface PetStoreUnderTest {
  readonly pets: PetStore;
  readonly records: IdempotencyStore;
}

const response = (pet: Pet): StoredResponse => ({
  statusCode: 201,
  headers: { Location: `/v1/pets/${pet.id}` },
  body: JSON.stringify(pet),
});

/** Runs the PetStore contract on the store `make` builds (once, before the suite). */
export function petStoreContract(adapter: string, make: () => PetStoreUnderTest): void {
  describe(`PetStore contract: ${adapter}`, () => {
    let store: PetStoreUnderTest;
    beforeAll(() => {
      store = make();
    });
    const create = (newPet: Partial<NewPet> = {}) =>
      store.pets.createPet({ name: 'Rex', categoryId: 1, status: 'available', ...newPet });

    it('issues ascending, unique ids and gives back exactly the pet it stored', async () => {
      const first = await create({ name: 'First', status: 'pending' });
      const second = await create({ name: 'Second', categoryId: 9 });

      expect(second.id).toBeGreaterThan(first.id);
      expect(first).toEqual({ id: first.id, name: 'First', categoryId: 1, status: 'pending' });
      expect(await store.pets.getPet(first.id)).toEqual(first);
      expect(await store.pets.getPet(second.id)).toEqual(second);
    });

    it('answers undefined for an id it never issued', async () => {
      const pet = await create();

      expect(await store.pets.getPet(pet.id + 1000)).toBeUndefined();
    });

    it('pages through the pets after afterId in ascending id, saying whether more follow', async () => {
      const before = (await create()).id;
      const created = [];
      for (let i = 0; i < 5; i++) created.push(await create({ name: `Paged ${i}` }));

      const first = await store.pets.listPets({ limit: 3, afterId: before });
      const last = await store.pets.listPets({ limit: 3, afterId: first.pets.at(-1)?.id });

      expect(first).toEqual({ pets: created.slice(0, 3), hasMore: true });
      expect(last).toEqual({ pets: created.slice(3), hasMore: false });
    });

    it('lists only the pets of the status asked for', async () => {
      const before = (await create()).id;
      const sold = [await create({ status: 'sold' }), await create({ status: 'sold' })];
      await create({ status: 'pending' });

      const page = await store.pets.listPets({ limit: 10, status: 'sold', afterId: before });

      expect(page).toEqual({ pets: sold, hasMore: false });
    });

    it('completes the idempotency record in the same write as the pet: a repeat replays it', async () => {
      const id = randomUUID();
      const nowMs = Date.now();
      const begun = await store.records.begin(id, 'f', { nowMs, lockedUntil: nowMs + 60_000 });
      if (begun.outcome !== 'run') throw new Error(`expected to run, got ${begun.outcome}`);

      const pet = await store.pets.createPet(
        { name: 'Once', categoryId: 1, status: 'available' },
        { completing: { lock: begun.lock, response } },
      );
      const repeat = await store.records.begin(id, 'f', { nowMs, lockedUntil: nowMs + 60_000 });

      expect(repeat).toEqual({ outcome: 'replay', response: response(pet) });
      expect(await store.pets.getPet(pet.id)).toEqual(pet);
    });

    it('writes no pet when the lock was lost to another attempt', async () => {
      const id = randomUUID();
      const nowMs = Date.now();
      const lapsed = await store.records.begin(id, 'f', { nowMs, lockedUntil: nowMs - 1 });
      const taken = await store.records.begin(id, 'f', { nowMs, lockedUntil: nowMs + 60_000 });
      if (lapsed.outcome !== 'run' || taken.outcome !== 'run') throw new Error('expected to run');
      const before = (await create()).id;

      await expect(
        store.pets.createPet(
          { name: 'Late', categoryId: 1, status: 'available' },
          { completing: { lock: lapsed.lock, response } },
        ),
      ).rejects.toBeInstanceOf(IdempotencyLockLostError);
      expect((await store.pets.listPets({ limit: 10, afterId: before })).pets).toEqual([]);
    });
  });
}
