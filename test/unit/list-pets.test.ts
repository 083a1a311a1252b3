import { beforeAll, describe, expect, it } from 'vitest';
import { listPetsHandler } from '../../functions/handlers/list-pets.ts';
import { createLambdaContext } from '../../infra/local/events.ts';
import { PET_STATUSES, type Pet } from '../../shared/pets/schemas.ts';
import { authorizedEvent, invoke } from '../support/authorized-event.ts';
import { errorResponse } from '../support/error-responses.ts';
import { inMemoryContainer } from '../support/in-memory-container.ts';

const container = inMemoryContainer();
const handler = listPetsHandler(container);

/** `GET /pets` with this query string (e.g. `limit=5&status=sold`). */
function listPets(query = '') {
  return invoke(
    handler,
    authorizedEvent({
      method: 'GET',
      resource: '/pets',
      path: '/pets',
      query: new URLSearchParams(query),
    }),
    createLambdaContext('list-pets'),
  );
}

/** The 25 pets of this file, in creation (= id) order; statuses cycle available, pending, sold. */
let pets: Pet[] = [];

beforeAll(async () => {
  const store = container.pets;
  pets = [];
  for (let i = 0; i < 25; i++) {
    const status = PET_STATUSES[i % PET_STATUSES.length] ?? 'available';
    pets.push(await store.createPet({ name: `Pet ${i}`, categoryId: 1 + (i % 4), status }));
  }
});

describe('listPets', () => {
  it('answers 200 with the 20 lowest ids and a Link to the next page when no limit is given', async () => {
    const response = await listPets();

    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(JSON.stringify(pets.slice(0, 20)));
    expect(response.headers).toEqual({
      'Content-Type': 'application/json',
      Link: expect.stringMatching(/^<\/v1\/pets\?limit=20&cursor=[\w-]+>; rel="next"$/),
    });
  });

  it('honours limit, lowest ids first', async () => {
    for (const limit of [1, 5, 24]) {
      expect((await listPets(`limit=${limit}`)).body).toBe(JSON.stringify(pets.slice(0, limit)));
    }
  });

  it('answers every pet once, in ascending id and without Link, when limit exceeds their number', async () => {
    expect(await listPets('limit=100')).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(pets),
    });
  });

  it('answers the next pets after the cursor of the Link, and no Link on the full last page', async () => {
    const first = await listPets('limit=20');
    const next = new URL(/^<(.+)>/.exec(first.headers?.Link as string)?.[1] ?? '', 'http://h');

    const second = await listPets(`limit=5&cursor=${next.searchParams.get('cursor')}`);

    expect(second).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(pets.slice(20)),
    });
  });

  it('answers 400 invalid_parameter naming cursor when it is not one the service issued', async () => {
    expect(await listPets('cursor=abc')).toEqual(
      errorResponse(
        400,
        'invalid_parameter',
        'cursor: is not a cursor this service issued; follow the Link header',
      ),
    );
  });

  it('filters by status, in ascending id', async () => {
    for (const status of PET_STATUSES) {
      const response = await listPets(`status=${status}`);
      expect(response).toEqual({
        statusCode: 200,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(pets.filter((pet) => pet.status === status)),
      });
    }
  });

  it('applies limit to the filtered pets, lowest ids first', async () => {
    const response = await listPets('status=sold&limit=3');
    expect(response.body).toBe(
      JSON.stringify(pets.filter((pet) => pet.status === 'sold').slice(0, 3)),
    );
  });

  it('answers 400 invalid_parameter naming limit when it is not an integer from 1 to 100', async () => {
    for (const limit of ['0', '101', '1.5', '-1', 'abc', '', '1e1', '9'.repeat(25)]) {
      expect(await listPets(new URLSearchParams({ limit }).toString()), limit).toEqual(
        errorResponse(400, 'invalid_parameter', 'limit: must be an integer from 1 to 100'),
      );
    }
  });

  it('answers 400 invalid_parameter naming status when it is not exactly a PetStatus', async () => {
    for (const status of ['Available', 'SOLD', '', 'bogus']) {
      expect(await listPets(new URLSearchParams({ status }).toString()), status).toEqual(
        errorResponse(400, 'invalid_parameter', 'status: must be one of available, pending, sold'),
      );
    }
  });

  it('answers 400 invalid_parameter for an unknown query parameter', async () => {
    expect(await listPets('page=2')).toEqual(
      errorResponse(400, 'invalid_parameter', 'page: is not allowed'),
    );
    expect(await listPets('limit=5&Status=sold')).toEqual(
      errorResponse(400, 'invalid_parameter', 'Status: is not allowed'),
    );
  });

  it('answers 400 invalid_parameter for a parameter named like an Object.prototype member', async () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      const event = authorizedEvent({ method: 'GET', resource: '/pets', path: '/pets' });
      // API Gateway's JSON event makes each parameter an own property, even these names.
      event.queryStringParameters = JSON.parse(`{"${name}":"1"}`);
      expect(await invoke(handler, event, createLambdaContext('list-pets')), name).toEqual(
        errorResponse(400, 'invalid_parameter', `${name}: is not allowed`),
      );
    }
  });
});
