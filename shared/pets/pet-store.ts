/** The pet store's ports, one per operation, through which the operations reach persistence. */
import type { IdempotentOutcome, IdempotentRequest } from '../idempotency/record.ts';
import type { NewPet, Pet, PetStatus } from './schemas.ts';

/** Options of {@link PetStore.listPets}. */
export interface ListPetsOptions {
  /** 1 to 100. */
  limit: number;
  status?: PetStatus;
  /** The last id of the page before. @default - from the lowest id */
  afterId?: number;
  /** Aborts the store's calls (the invocation's deadline). */
  signal?: AbortSignal;
}

export interface PetPage {
  /** In ascending id. */
  pets: Pet[];
  hasMore: boolean;
}

export interface CallOptions {
  /** Aborts the store's calls (the invocation's deadline). */
  readonly signal?: AbortSignal;
}

/** createPet's port: new pets, at most once per idempotency key. */
export interface PetCreator {
  /**
   * Stores a new pet under a fresh id (a positive safe integer, unique, never reused).
   * @throws StoreUnavailableError (the pet may exist).
   */
  createPet(newPet: NewPet, options?: CallOptions): Promise<Pet>;
  /**
   * {@link createPet} with its idempotency record in one atomic write, unless the key has a live
   * record or a write in flight: then nothing is written (docs/idempotency.md).
   * @throws StoreUnavailableError (the pet and its record may exist).
   */
  createPetOnce(
    newPet: NewPet,
    request: IdempotentRequest,
    options?: CallOptions,
  ): Promise<IdempotentOutcome<Pet>>;
  /**
   * Readies the next {@link createPet} so it needs no round trip for its id. Safe beside the rate
   * limiter's call: a refused request wastes at most ids. @throws StoreUnavailableError
   */
  prepareCreate(options?: CallOptions): Promise<void>;
}

/** getPet's port: one pet by id. */
export interface PetReader {
  /** The pet with this id, or `undefined`. @throws StoreUnavailableError */
  getPet(id: number, options?: CallOptions): Promise<Pet | undefined>;
}

/** listPets's port: pages of pets in ascending id. */
export interface PetLister {
  /** The first `limit` pets after `afterId`, and if more follow. @throws StoreUnavailableError */
  listPets(options: ListPetsOptions): Promise<PetPage>;
}

/** Persistence of pets, every operation's port: the local stack's, the tests' and the benches'. */
export interface PetStore extends PetCreator, PetReader, PetLister {}
