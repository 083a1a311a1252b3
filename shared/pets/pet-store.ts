/** The PetStore port, through which the operations reach persistence. */
import type { RecordedRequest } from '../idempotency/record.ts';
import type { NewPet, Pet, PetStatus } from './schemas.ts';

/** Options of {@link PetStore.listPets}. */
export interface ListPetsOptions {
  /** Most pets to return, 1 to 100. */
  limit: number;
  /** Only pets with this status. */
  status?: PetStatus;
  /** Only pets with a larger id: the last id of the page before. @default - from the lowest id */
  afterId?: number;
  /** Aborts the store's calls (the invocation's deadline). */
  signal?: AbortSignal;
}

/** One page of pets. */
export interface PetPage {
  /** At most `limit` pets, in ascending id. */
  pets: Pet[];
  /** Whether more pets follow the last one (under the same filter). */
  hasMore: boolean;
}

/** Options of {@link PetStore.createPet}. */
export interface CreatePetOptions {
  /** Aborts the store's calls (the invocation's deadline). */
  readonly signal?: AbortSignal;
  /** The idempotency record to write in the pet's own atomic write. @default - none */
  readonly recording?: RecordedRequest<Pet>;
}

/** Persistence of pets, as the operations need it. */
export interface PetStore {
  /**
   * Stores a new pet under a fresh id (a positive safe integer, unique, never reused).
   * @throws IdempotencyKeyUsedError (with the live record) or IdempotencyInProgressError for
   *   `recording`'s key, nothing written; StoreUnavailableError (the pet may exist).
   */
  createPet(newPet: NewPet, options?: CreatePetOptions): Promise<Pet>;
  /**
   * Readies the next {@link createPet} so it needs no round trip for its id. Safe beside the rate
   * limiter's call: a refused request wastes at most ids. @throws StoreUnavailableError
   */
  prepareCreate(options?: { signal?: AbortSignal }): Promise<void>;
  /** The pet with this id, or `undefined`. @throws StoreUnavailableError */
  getPet(id: number, options?: { signal?: AbortSignal }): Promise<Pet | undefined>;
  /** The first `limit` pets after `afterId`, and if more follow. @throws StoreUnavailableError */
  listPets(options: ListPetsOptions): Promise<PetPage>;
}
