/**
 * `GET /pets` (operation `listPets`; docs/openapi.yaml): a page of pets in ascending id, 20 by
 * default, filtered by `status`; `Link: <…>; rel="next"` with a signed cursor when more follow.
 * Anything but `limit` 1–100, a PetStatus and an issued cursor → 400 `invalid_parameter`.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Container } from '../../shared/container.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { nextPageLink } from '../../shared/http/page-link.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import { parseOrThrow } from '../../shared/http/validation.ts';
import { ListPetsQuerySchema } from '../../shared/pets/parameters.ts';
import type { PetLister } from '../../shared/pets/pet-store.ts';
import { cursorCodecFromSettings } from '../../shared/secrets.ts';

/**
 * The Lambda handler of listPets on `container`'s pet store and rate limiter, with the cursor key
 * of its settings (`cursorCodecFromSettings`): the page (its cursor checked first) is its read,
 * sent together with the limiter's call, one round trip for both.
 *
 * @throws Error at start-up when a setting it needs is missing.
 */
export function listPetsHandler(
  container: Pick<Container, 'settings' | 'rateLimiter'> & { readonly pets: PetLister },
) {
  const { pets } = container;
  const cursorCodec = cursorCodecFromSettings(container.settings);
  return httpHandler({
    container,
    queryParameters: Object.keys(ListPetsQuerySchema.entries),
    input: (event: APIGatewayProxyEvent) =>
      parseOrThrow(
        ListPetsQuerySchema,
        event.queryStringParameters ?? {},
        'query',
        'invalid_parameter',
      ),
    read: async function readPage({ limit, status, cursor }, { signal }) {
      const afterId =
        cursor === undefined ? undefined : (await cursorCodec()).decode(cursor, status);
      return pets.listPets({ limit, status, afterId, signal });
    },
    operation: async function listPets(_event, _context, { input: query, read: page }) {
      const last = page.pets.at(-1);
      if (!page.hasMore || !last) return jsonResponse(200, page.pets);
      const next = (await cursorCodec()).encode({ status: query.status, afterId: last.id });
      return jsonResponse(200, page.pets, { Link: nextPageLink(query, next) });
    },
  });
}
