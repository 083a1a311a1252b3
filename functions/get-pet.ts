/**
 * `GET /pets/{petId}` (operation `getPet`, deprecated; petstore-spec.md, "Endpoints" and
 * "Versioning").
 *
 * 200 with the Pet; 400 `invalid_parameter` when `petId` is not a positive integer; 404
 * `pet_not_found`. Every response carries the Deprecation, Sunset and Link headers.
 */
import { createContainer } from '../shared/container.ts';
import { ApiError } from '../shared/http/errors.ts';
import { httpHandler } from '../shared/http/handler.ts';
import { jsonResponse } from '../shared/http/responses.ts';
import { parseOrThrow } from '../shared/http/validation.ts';
import { GET_PET_DEPRECATION_HEADERS } from '../shared/pets/deprecation.ts';
import { PetIdSchema } from '../shared/pets/schemas.ts';
import { petStoreFromEnv } from '../shared/pets/store.ts';

const container = createContainer();
const store = petStoreFromEnv(container);

/** Lambda handler of getPet: API Gateway REST proxy event in, proxy result out. */
export const handler = httpHandler(
  async function getPet(event, _context, { signal }) {
    const petId = parseOrThrow(
      PetIdSchema,
      event.pathParameters?.petId,
      'petId',
      'invalid_parameter',
    );
    // Ids are safe integers; a larger number cannot name a pet and would lose digits as a key.
    const pet = Number.isSafeInteger(petId) ? await store.getPet(petId, { signal }) : undefined;
    if (!pet) throw new ApiError('pet_not_found', `No pet has id ${event.pathParameters?.petId}.`);
    return jsonResponse(200, pet);
  },
  { container, headers: GET_PET_DEPRECATION_HEADERS },
);
