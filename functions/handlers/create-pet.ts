/**
 * `POST /pets` (operation `createPet`; docs/openapi.yaml): a NewPet as `application/json`, at most
 * 16 KiB → 201 with the Pet and `Location: /v1/pets/{id}`. With an `Idempotency-Key` the create
 * runs at most once per key and API key (docs/idempotency.md): a repeat replays the first answer.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Container } from '../../shared/container.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  idempotencyKeyOf,
  requestFingerprint,
} from '../../shared/http/idempotency-key.ts';
import { jsonBody } from '../../shared/http/json-body.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import { parseOrThrow } from '../../shared/http/validation.ts';
import {
  IdempotencyInProgressError,
  IdempotencyKeyReusedError,
} from '../../shared/idempotency/idempotency-errors.ts';
import { logger } from '../../shared/logger.ts';
import { PET_PATH, stagePath } from '../../shared/paths.ts';
import type { PetCreator } from '../../shared/pets/pet-store.ts';
import { NewPetSchema, type Pet } from '../../shared/pets/schemas.ts';
import { StoreUnavailableError } from '../../shared/store-errors.ts';

/** What a failed create tells the client, without and with an Idempotency-Key. */
const UNCONFIRMED = {
  withoutKey:
    'The store did not confirm the create: the pet may or may not have been created. Send an Idempotency-Key with every POST so that a retry is safe.',
  withKey:
    'The store did not confirm the create. Retry with the same Idempotency-Key: the retry answers with the pet if it was created, or creates it.',
};

/** The 201 of a created pet; `headers` added (a replay's `Idempotent-Replayed`). */
function created(pet: Pet, headers: Record<string, string> = {}) {
  return jsonResponse(201, pet, { Location: stagePath(PET_PATH, { petId: pet.id }), ...headers });
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
 * The Lambda handler of createPet on `container`'s pet store and rate limiter: the next create is
 * readied as its read, together with the limiter's call; with an Idempotency-Key the pet store writes
 * the request's record in the pet's own atomic write, and the answer is built from its outcome.
 */
export function createPetHandler(
  container: Pick<Container, 'settings' | 'rateLimiter'> & { readonly pets: PetCreator },
) {
  const { pets } = container;
  return httpHandler({
    container,
    body: jsonBody(),
    input: (event: APIGatewayProxyEvent) => ({
      idempotencyKey: idempotencyKeyOf(event),
      newPet: parseOrThrow(NewPetSchema, event.body, 'body', 'invalid_body'),
      fingerprint: requestFingerprint(event.body),
    }),
    // Readies the next create; never fails the request: the create then takes its id itself.
    read: (_input, { signal }) =>
      pets.prepareCreate({ signal }).catch((error: unknown) => {
        logger.warn('Could not ready the next create; it takes its id itself', { error });
      }),
    operation: async function createPet(_event, _context, { signal, key, input }) {
      const { newPet, idempotencyKey, fingerprint } = input;
      if (idempotencyKey === undefined) {
        const pet = await pets
          .createPet(newPet, { signal })
          .catch(unconfirmed(UNCONFIRMED.withoutKey));
        return created(pet);
      }
      const request = { id: `${key.keyId}#${idempotencyKey}`, fingerprint };
      const outcome = await pets
        .createPetOnce(newPet, request, { signal })
        .catch(unconfirmed(UNCONFIRMED.withKey));
      switch (outcome.status) {
        case 'created':
          return created(outcome.result);
        case 'replayed':
          return created(outcome.result, { [IDEMPOTENT_REPLAYED_HEADER]: 'true' });
        case 'reused':
          throw new IdempotencyKeyReusedError(
            `${IDEMPOTENCY_KEY_HEADER}: was used with a different request body; send a new key for a new request.`,
          );
        case 'in flight':
          throw new IdempotencyInProgressError(outcome.retryAfterSeconds);
      }
    },
  });
}
