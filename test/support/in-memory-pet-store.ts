/** A PetStore in memory, with the semantics of the DynamoDB one; for tests. */
import type { IdempotentOutcome, IdempotentRequest } from '../../shared/idempotency/record.ts';
import type { ListPetsOptions, PetPage, PetStore } from '../../shared/pets/pet-store.ts';
import type { NewPet, Pet } from '../../shared/pets/schemas.ts';
import { pageOf, petWithId } from '../../shared/pets/store-rules.ts';
import type { InMemoryIdempotencyStore } from './in-memory-idempotency-store.ts';

/** Pets in a Map; ids from 1, never reused (a failed create uses one up, as on DynamoDB). */
export class InMemoryPetStore implements PetStore {
  private readonly pets = new Map<number, Pet>();
  private lastId = 0;

  /**
   * @param records The idempotency records that `createPetOnce` writes.
   * @param now Clock of the records' expiry, epoch milliseconds.
   */
  constructor(
    private readonly records: InMemoryIdempotencyStore,
    private readonly now: () => number = Date.now,
  ) {}

  async createPet(newPet: NewPet): Promise<Pet> {
    this.lastId += 1;
    const pet = petWithId(newPet, this.lastId);
    this.pets.set(pet.id, pet);
    return { ...pet };
  }

  async createPetOnce(newPet: NewPet, request: IdempotentRequest): Promise<IdempotentOutcome<Pet>> {
    this.lastId += 1;
    const pet = petWithId(newPet, this.lastId);
    const met = this.records.put(request, pet, this.now());
    if (met) return met;
    this.pets.set(pet.id, pet);
    return { status: 'created', result: { ...pet } };
  }

  /** Ids come from memory: nothing to ready. */
  async prepareCreate(): Promise<void> {}

  async getPet(id: number): Promise<Pet | undefined> {
    const pet = this.pets.get(id);
    return pet && { ...pet };
  }

  async listPets({ limit, status, afterId = 0 }: ListPetsOptions): Promise<PetPage> {
    const matching = [...this.pets.values()]
      .filter((pet) => pet.id > afterId && (status === undefined || pet.status === status))
      .sort((a, b) => a.id - b.id);
    return pageOf(
      matching.slice(0, limit + 1).map((pet) => ({ ...pet })),
      limit,
    );
  }
}
