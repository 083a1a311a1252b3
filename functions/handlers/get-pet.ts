/**
 * `GET /pets/{petId}` (operation `getPet`, deprecated; docs/openapi.yaml): 200 with the Pet; 400
 * `invalid_parameter` when `petId` is not a positive integer; 404 `pet_not_found`. Every answer
 * carries the Deprecation, Sunset and Link headers of its row's `deprecation`.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Container } from '../../shared/container.ts';
import { type Deprecation, deprecationHeaders } from '../../shared/http/deprecation.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import type { HttpMiddleware } from '../../shared/http/middleware.ts';
import { jsonResponse } from '../../shared/http/responses.ts';
import { parseOrThrow } from '../../shared/http/validation.ts';
import { type Operation, operationOf } from '../../shared/operations.ts';
import { PetIdSchema } from '../../shared/pets/parameters.ts';
import { PetNotFoundError } from '../../shared/pets/pet-errors.ts';
import type { PetReader } from '../../shared/pets/pet-store.ts';

/** Adds `deprecation`'s headers to every answer, errors included (a middy middleware). */
export function deprecated(deprecation: Deprecation): HttpMiddleware {
  const headers = deprecationHeaders(deprecation);
  // Also runs on errors, after errorHandler's onError (middy unwinds in reverse), so the answer exists.
  const deprecatedAfter: NonNullable<HttpMiddleware['after']> = (request) => {
    if (request.response) request.response.headers = { ...request.response.headers, ...headers };
  };
  return { after: deprecatedAfter, onError: deprecatedAfter };
}

/**
 * The Lambda handler of getPet on `container`'s pet store and rate limiter: the pet is its read,
 * sent together with the limiter's call, one round trip for both.
 *
 * @param route Its operation's row, whose `deprecation` sets the headers.
 *   @default operationOf('getPet')
 */
export function getPetHandler(
  container: Pick<Container, 'settings' | 'rateLimiter'> & { readonly pets: PetReader },
  route: Pick<Operation, 'deprecation'> = operationOf('getPet'),
) {
  const { pets } = container;
  return httpHandler({
    container,
    headers: route.deprecation && deprecated(route.deprecation),
    input: (event: APIGatewayProxyEvent) => {
      const given = event.pathParameters?.petId;
      return {
        given: String(given),
        petId: parseOrThrow(PetIdSchema, given, 'petId', 'invalid_parameter'),
      };
    },
    // Ids are safe integers; a larger number cannot name a pet and would lose digits as a key.
    read: async ({ petId }, { signal }) =>
      Number.isSafeInteger(petId) ? pets.getPet(petId, { signal }) : undefined,
    operation: async function getPet(_event, _context, { input, read: pet }) {
      if (!pet) throw new PetNotFoundError(input.given);
      return jsonResponse(200, pet);
    },
  });
}
