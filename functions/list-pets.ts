/**
 * `GET /pets` (operation `listPets`; petstore-spec.md, "Endpoints").
 *
 * Query: `limit` 1–100 (default 20), `status` one of the PetStatus values, `cursor` as issued in
 * the `Link` header of the page before; anything else → 400 `invalid_parameter`. 200 with a JSON
 * array of at most `limit` pets in ascending id, and `Link: <…>; rel="next"` when more follow.
 */
import { createContainer } from '../shared/container.ts';
import { httpHandler } from '../shared/http/handler.ts';
import { jsonResponse } from '../shared/http/responses.ts';
import { parseOrThrow } from '../shared/http/validation.ts';
import { cursorCodecFromEnv, nextPageLink } from '../shared/pets/cursor.ts';
import { ListPetsQuerySchema } from '../shared/pets/schemas.ts';
import { petStoreFromEnv } from '../shared/pets/store.ts';

const container = createContainer();
const store = petStoreFromEnv(container);
const cursorCodec = cursorCodecFromEnv(container.settings);

/** Lambda handler of listPets: API Gateway REST proxy event in, proxy result out. */
export const handler = httpHandler(
  async function listPets(event, _context, { signal }) {
    const { limit, status, cursor } = parseOrThrow(
      ListPetsQuerySchema,
      event.queryStringParameters ?? {},
      'query',
      'invalid_parameter',
    );
    const afterId = cursor === undefined ? undefined : (await cursorCodec()).decode(cursor, status);
    const { pets, hasMore } = await store.listPets({ limit, status, afterId, signal });
    const last = pets.at(-1);
    if (!hasMore || !last) return jsonResponse(200, pets);
    const next = (await cursorCodec()).encode({ status, afterId: last.id });
    return jsonResponse(200, pets, { Link: nextPageLink({ limit, status }, next) });
  },
  { container, queryParameters: Object.keys(ListPetsQuerySchema.entries) },
);
