/**
 * getPet (GET /pets/{petId}, deprecated) end to end over the local gateway
 * (test/support/local-api.ts): the pet, 404 pet_not_found and 400 invalid_parameter, each with
 * the deprecation headers.
 */
import { describe, expect, it } from 'vitest';
import { routeOf } from '../../infra/routes.ts';
import { deprecationHeaders } from '../../shared/http/deprecation.ts';
import { expectError } from '../support/error-responses.ts';
import { api, createPet, expectPet, send, serveLocalApi } from '../support/local-api.ts';

serveLocalApi();

const { deprecation } = routeOf('getPet');
if (!deprecation) throw new Error("getPet's row in infra/routes.ts has no deprecation");
/** The headers of the deprecation in getPet's row (their values: test/unit/get-pet.test.ts). */
const DEPRECATION_HEADERS = deprecationHeaders(deprecation);

function expectDeprecationHeaders(response: Response): void {
  for (const [name, value] of Object.entries(DEPRECATION_HEADERS)) {
    expect(response.headers.get(name)).toBe(value);
  }
}

describe('getPet (GET /pets/{petId}, deprecated)', () => {
  it('answers 200 with the pet and the deprecation headers', async () => {
    const pet = await createPet('Fetched pet', 'sold');

    const { data, response } = await api.GET('/pets/{petId}', {
      params: { path: { petId: pet.id } },
    });

    expect(response.status).toBe(200);
    expect(expectPet(response, data)).toEqual(pet);
    expectDeprecationHeaders(response);
  });

  it('answers 404 pet_not_found with the deprecation headers when no pet has the id', async () => {
    const { error, response } = await api.GET('/pets/{petId}', {
      params: { path: { petId: Number.MAX_SAFE_INTEGER } },
    });

    expectError(response, error, { status: 404, code: 'pet_not_found' });
    expectDeprecationHeaders(response);
  });

  it.each([0, -1, 1.5])(
    'answers 400 invalid_parameter naming petId, with the deprecation headers, when it is %s',
    async (petId) => {
      const { error, response } = await api.GET('/pets/{petId}', { params: { path: { petId } } });

      expectError(response, error, { status: 400, code: 'invalid_parameter', naming: 'petId' });
      expectDeprecationHeaders(response);
    },
  );

  it('answers 400 invalid_parameter naming petId, with the deprecation headers, when it is abc', async () => {
    const { response, body } = await send('GET', '/pets/abc');

    expectError(response, body, { status: 400, code: 'invalid_parameter', naming: 'petId' });
    expectDeprecationHeaders(response);
  });
});
