/**
 * `POST /pets` (operation `createPet`; docs/openapi.yaml): a NewPet as `application/json`, at most
 * 16 KiB → 201 with the Pet and `Location: /v1/pets/{id}`. With an `Idempotency-Key` the create
 * runs at most once per key and API key (docs/idempotency.md): a repeat replays the first answer.
 */
import type { Container } from '../../shared/container.ts';
import { authorizedKey } from '../../shared/http/authorized-key.ts';
import { type Deadline, httpHandler } from '../../shared/http/handler.ts';
import { idempotencyKeyOf, requestFingerprint } from '../../shared/http/idempotency-key.ts';
import { proxyResult, runIdempotent } from '../../shared/http/idempotent.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { parseOrThrow } from '../../shared/http/validation.ts';
import type { StoredResponse } from '../../shared/idempotency/record.ts';
import { logger } from '../../shared/logger.ts';
import { PET_PATH, stagePath } from '../../shared/paths.ts';
import type { PetStore } from '../../shared/pets/pet-store.ts';
import { NewPetSchema, type Pet } from '../../shared/pets/schemas.ts';
import { StoreUnavailableError } from '../../shared/store-errors.ts';

/** What a failed create tells the client, without and with an Idempotency-Key. */
const UNCONFIRMED = {
  withoutKey:
    'The store did not confirm the create: the pet may or may not have been created. Send an Idempotency-Key with every POST so that a retry is safe.',
  withKey:
    'The store did not confirm the create. Retry with the same Idempotency-Key: the retry answers with the pet if it was created, or creates it.',
};

/** The 201 of a created pet. */
function created(pet: Pet): StoredResponse {
  return {
    statusCode: 201,
    headers: { Location: stagePath(PET_PATH, { petId: pet.id }) },
    body: JSON.stringify(pet),
  };
}

/** Rethrows a store's failure with `message`, which says whether the pet may exist. */
function unconfirmed(message: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof StoreUnavailableError)
      throw new StoreUnavailableError(message, { cause: error });
    throw error;
  };
}

/**
 * Readies the instance's next create (`PetStore.prepareCreate`) beside the rate limiter's call. It
 * never fails the request: when it cannot, the create makes the call it would have saved.
 */
function readyNextCreate(pets: PetStore) {
  return function prepareCreate(_event: unknown, { signal }: Deadline) {
    return pets.prepareCreate({ signal }).catch((error: unknown) => {
      logger.warn('Could not ready the next create; it takes its id itself', { error });
    });
  };
}

/**
 * The Lambda handler of createPet on `container`'s pet store and rate limiter. With an
 * Idempotency-Key the pet store writes the request's record in the pet's own atomic write; the
 * next create is readied beside the limiter's call, and the create waits for it.
 */
export function createPetHandler(container: Pick<Container, 'settings' | 'pets' | 'rateLimiter'>) {
  const { pets } = container;
  return httpHandler(
    async function createPet(event, _context, { signal, started }) {
      await started;
      const key = idempotencyKeyOf(event);
      const newPet = parseOrThrow(NewPetSchema, event.body, 'body', 'invalid_body');
      if (key === undefined) {
        const pet = await pets
          .createPet(newPet, { signal })
          .catch(unconfirmed(UNCONFIRMED.withoutKey));
        return proxyResult(created(pet));
      }
      const request = {
        id: `${authorizedKey(event).keyId}#${key}`,
        fingerprint: requestFingerprint(event.body),
      };
      return runIdempotent(request, async () => {
        const pet = await pets
          .createPet(newPet, { signal, recording: { ...request, response: created } })
          .catch(unconfirmed(UNCONFIRMED.withKey));
        return created(pet);
      });
    },
    { container, body: jsonBody(), beside: readyNextCreate(pets) },
  );
}
