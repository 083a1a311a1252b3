/**
 * `GET /pets` (operation `listPets`; petstore-spec.md, "Endpoints").
 *
 * Query: `limit` 1–100 (default 20), `status` one of the PetStatus values; anything else → 400
 * `invalid_parameter`. 200 with a JSON array of at most `limit` pets: with `status`, ascending id
 * (a Query on the status GSI); without, in table order.
 */
import { httpHandler } from '../shared/http/handler.ts';
import { jsonResponse } from '../shared/http/responses.ts';
import { parseOrThrow } from '../shared/http/validation.ts';
import { ListPetsQuerySchema } from '../shared/pets/schemas.ts';
import { petStoreFromEnv } from '../shared/pets/store.ts';

const store = petStoreFromEnv();

/** Lambda handler of listPets: API Gateway REST proxy event in, proxy result out. */
export const handler = httpHandler(
  async function listPets(event, _context, { signal }) {
    const query = parseOrThrow(
      ListPetsQuerySchema,
      event.queryStringParameters ?? {},
      'query',
      'invalid_parameter',
    );
    return jsonResponse(200, await store.listPets({ ...query, signal }));
  },
  { queryParameters: Object.keys(ListPetsQuerySchema.entries) },
);
