/** Errors of the pets domain; `shared/http/error-mapping.ts` answers them. */

/** A `cursor` this service did not issue, or issued for another status filter. */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';

  /** @param reason Why, for the client: e.g. `was altered or not issued by this service`. */
  constructor(reason: string, options?: ErrorOptions) {
    super(`cursor: ${reason}`, options);
  }
}

/** No pet has the requested id. */
export class PetNotFoundError extends Error {
  override readonly name = 'PetNotFoundError';

  /** @param id The id as the client sent it. */
  constructor(id: string, options?: ErrorOptions) {
    super(`No pet has id ${id}.`, options);
  }
}
