/** The rules every PetStore applies, apart from storage (the DynamoDB store and its in-memory twin). */
import type { PetPage } from './pet-store.ts';
import type { NewPet, Pet } from './schemas.ts';

/** The pet a create stores: `newPet`'s fields under the fresh `id`, nothing else of the body. */
export function petWithId(newPet: NewPet, id: number): Pet {
  return { id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status };
}

/** The page of `limit` pets from the first `limit + 1` after the cursor (the extra says more follow). */
export function pageOf(firstPets: readonly Pet[], limit: number): PetPage {
  return { pets: firstPets.slice(0, limit), hasMore: firstPets.length > limit };
}
