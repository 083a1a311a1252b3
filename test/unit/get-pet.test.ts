import { beforeAll, describe, expect, it } from 'vitest';
import { getPetHandler } from '../../functions/handlers/get-pet.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { routeOf } from '../../infra/routes.ts';
import type { Pet } from '../../shared/pets/schemas.ts';
import { authorizedEvent, invoke } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';

const container = inMemoryContainer();
const handler = getPetHandler(container);

/** Headers every response of getPet carries, whatever its status: its row's deprecation. */
const HEADERS = {
  'Content-Type': 'application/json',
  Deprecation: '@1795219200',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
};

/** `GET /pets/{petId}` with this (already URL-decoded) path parameter. */
function getPet(petId: string, getPetFunction = handler) {
  return invoke(
    getPetFunction,
    authorizedEvent({
      method: 'GET',
      resource: '/pets/{petId}',
      path: `/pets/${encodeURIComponent(petId)}`,
      pathParameters: { petId },
    }),
    createLambdaContext('get-pet'),
  );
}

let pet: Pet;

beforeAll(async () => {
  pet = await container.pets.createPet({ name: 'Rex 🐶', categoryId: 3, status: 'sold' });
});

describe('getPet', () => {
  it('answers 200 with the pet and the deprecation headers', async () => {
    expect(await getPet(String(pet.id))).toEqual({
      statusCode: 200,
      headers: HEADERS,
      body: JSON.stringify({ id: pet.id, name: 'Rex 🐶', categoryId: 3, status: 'sold' }),
    });
  });

  it('answers 404 pet_not_found with the deprecation headers when the pet does not exist', async () => {
    const missing = String(pet.id + 1000);
    expect(await getPet(missing)).toEqual(
      errorResponse(404, 'pet_not_found', `No pet has id ${missing}.`, HEADERS),
    );
  });

  it('answers 404 for an id too large to be a pet id', async () => {
    for (const petId of ['9007199254740992', '9'.repeat(40), '1'.repeat(400)]) {
      expect(await getPet(petId), petId).toEqual(
        errorResponse(404, 'pet_not_found', `No pet has id ${petId}.`, HEADERS),
      );
    }
  });

  it('answers 400 invalid_parameter with the deprecation headers when petId is not a positive integer', async () => {
    for (const petId of ['abc', '0', '-1', '1.5', '', ' 1', '1e3', '0x1']) {
      expect(await getPet(petId), JSON.stringify(petId)).toEqual(
        errorResponse(400, 'invalid_parameter', 'petId: must be a positive integer', HEADERS),
      );
    }
  });

  it('answers without the deprecation headers when its row has no deprecation', async () => {
    const undeprecated = getPetHandler(container, { ...routeOf('getPet'), deprecation: undefined });

    const response = await getPet(String(pet.id), undeprecated);

    expect(response.statusCode).toBe(200);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json' });
  });
});
