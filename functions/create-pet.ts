/**
 * `POST /pets` (operation `createPet`; petstore-spec.md, "Endpoints").
 *
 * Body: NewPet as `application/json`, at most 16 KiB. 201 with the Pet and
 * `Location: /v1/pets/{id}`; 400 `invalid_json` or `invalid_body`, 413, 415 otherwise.
 */
import { httpHandler } from '../shared/http/handler.ts';
import { jsonResponse } from '../shared/http/responses.ts';
import { parseOrThrow } from '../shared/http/validation.ts';
import { NewPetSchema } from '../shared/pets/schemas.ts';
import { petStoreFromEnv } from '../shared/pets/store.ts';

const store = petStoreFromEnv();

/** Lambda handler of createPet: API Gateway REST proxy event in, proxy result out. */
export const handler = httpHandler(
  async function createPet(event) {
    const newPet = parseOrThrow(NewPetSchema, event.body, 'body', 'invalid_body');
    const pet = await store.createPet(newPet);
    return jsonResponse(201, pet, { Location: `/v1/pets/${pet.id}` });
  },
  { jsonBody: true },
);
