/**
 * The rules both PetStores call (shared/pets/store-rules.ts), without a store: the pet a create
 * stores and the page of the first limit + 1.
 */
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../shared/pets/schemas.ts';
import { pageOf, petWithId } from '../../shared/pets/store-rules.ts';

const pets = (...ids: number[]): Pet[] =>
  ids.map((id) => ({ id, name: `Pet ${id}`, categoryId: 1, status: 'available' }));

describe('petWithId', () => {
  it('keeps only the fields of a pet, under the fresh id', () => {
    const body = { name: 'Rex', categoryId: 2, status: 'sold', id: 99, owner: 'x' } as never;

    expect(petWithId(body, 7)).toStrictEqual({ id: 7, name: 'Rex', categoryId: 2, status: 'sold' });
  });
});

describe('pageOf', () => {
  it('answers limit pets and says more follow only when the extra one was read', () => {
    expect(pageOf(pets(1, 2, 3), 2)).toEqual({ pets: pets(1, 2), hasMore: true });
    expect(pageOf(pets(1, 2), 2)).toEqual({ pets: pets(1, 2), hasMore: false });
    expect(pageOf([], 2)).toEqual({ pets: [], hasMore: false });
  });
});
